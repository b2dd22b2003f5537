package common

import "testing"

func TestScrollOffset(t *testing.T) {
	for _, c := range []struct{ offset, i, h, n, want int }{
		{0, 0, 5, 20, 0},    // on screen: stays
		{0, 7, 5, 20, 3},    // below: scrolls just enough
		{10, 4, 5, 20, 4},   // above: scrolls up to it
		{18, 19, 5, 20, 15}, // the screen stays full at the end
		{3, 2, 5, 3, 0},     // fewer rows than the screen
	} {
		if got := ScrollOffset(c.offset, c.i, c.h, c.n); got != c.want {
			t.Errorf("ScrollOffset(%d, %d, %d, %d) = %d, want %d", c.offset, c.i, c.h, c.n, got, c.want)
		}
	}
}
