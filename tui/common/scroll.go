package common

// ScrollOffset is the first row a list of n rows shows, h at a time, so
// that row i is on screen and the screen stays full, moving from offset
// as little as it can.
func ScrollOffset(offset, i, h, n int) int {
	offset = min(offset, i)
	if i >= offset+h {
		offset = i - h + 1
	}
	return max(min(offset, n-h), 0)
}
