package timeline

// Prepend puts the items of older, a timeline of the events that come just
// before this one's (read apart, such as an older part of a transcript
// whose tail is shown first), before this timeline's items, and mends
// what the cut between them broke: a call whose first half is in older
// and whose second half came alone here becomes one item, and the items
// of a delegation whose head is in older join its block (the end closes
// it). Every item keeps its identity and gets a position (older's items
// a new ID) in this timeline; counts add up; the session's start is
// older's when it has one. older must not be used afterwards, and neither
// timeline may leave outputs in a file (Spill).
func (t *Timeline) Prepend(older *Timeline) {
	if older == nil || len(older.items) == 0 {
		return
	}
	removed := t.joinHalves(older)
	items := make([]*Item, 0, len(older.items)+len(t.items)-len(removed))
	for _, it := range older.items {
		it.ID = t.nextID
		t.nextID++
		items = append(items, it)
	}
	for _, it := range t.items {
		if !removed[it] {
			items = append(items, it)
		}
	}
	t.items = items
	t.adoptStrays(older)
	for i, it := range t.items {
		it.index = int32(i)
		if it.Parent != nil {
			it.Depth = it.Parent.Depth + 1
		}
		it.resumes = it.Parent != nil && i > 0 && !t.items[i-1].inside(it.Parent)
	}
	for _, it := range t.items {
		for p := it.Parent; p != nil; p = p.Parent {
			if p.more.last.index < it.index {
				p.more.last = it
			}
		}
	}
	t.mergeMaps(older)
	t.addCounts(older)
}

// joinHalves joins the second halves that came alone here to their first
// halves in older; it returns the items that are no more.
func (t *Timeline) joinHalves(older *Timeline) map[*Item]bool {
	removed := map[*Item]bool{}
	for key, second := range t.lone {
		if key.kind == KindDelegationEnd {
			continue // an end stays an item: it closes the block (adoptStrays)
		}
		first := older.open[key]
		if first == nil {
			continue
		}
		first.second = second.first
		if first.more != nil && second.more != nil {
			first.more.second = second.more.first
		}
		shareStrings(first)
		first.Version++
		delete(older.open, key)
		delete(t.lone, key)
		removed[second] = true
	}
	return removed
}

// adoptStrays puts the items whose delegation's head is in older (placed
// at the top level here, not knowing it) under that head, and makes an
// end that came alone the end of its head's block.
func (t *Timeline) adoptStrays(older *Timeline) {
	for callID, items := range t.strays {
		head := older.delegations[callID]
		if head == nil {
			continue
		}
		for _, it := range items {
			it.Parent = head
		}
		delete(t.strays, callID)
	}
	for key, end := range t.lone {
		head := older.delegations[key.callID]
		if key.kind != KindDelegationEnd || head == nil || head.second != nil {
			continue
		}
		head.second = end.first
		head.more.second = end.more.first
		head.Version++
		end.Kind, end.Parent = KindDelegationEnd, head
		end.Version++
		delete(t.lone, key)
	}
}

// mergeMaps takes over what older still waits for.
func (t *Timeline) mergeMaps(older *Timeline) {
	for key, it := range older.open {
		if _, ok := t.open[key]; !ok {
			t.open[key] = it
		}
	}
	for id, it := range older.delegations {
		if _, ok := t.delegations[id]; !ok {
			t.delegations[id] = it
		}
	}
	// What is still alone may join a part older still: older's, and this
	// timeline's that older did not complete.
	for key, it := range older.lone {
		t.lone[key] = it
	}
	for callID, items := range older.strays {
		t.strays[callID] = append(items, t.strays[callID]...)
	}
}

// addCounts adds older's summary to this one's.
func (t *Timeline) addCounts(older *Timeline) {
	if older.Start != nil {
		t.Start = older.Start
	}
	if t.End == nil {
		t.End = older.End
	}
	if !older.First.IsZero() && (t.First.IsZero() || older.First.Before(t.First)) {
		t.First = older.First
	}
	if older.Last.After(t.Last) {
		t.Last = older.Last
	}
	t.Counts.Merge(older.Counts.Tally)
	t.Counts.Malformed += older.Counts.Malformed
}
