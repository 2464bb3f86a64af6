package recordings

// Stats says what the store holds: its entries, the bytes of the pack
// file, and the bytes of the results as they are.
type Stats struct {
	Results   int
	PackBytes int64
	RawBytes  int64
}

// Stats reads what the store holds.
func (s *Store) Stats() (Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return Stats{}, err
	}
	st := Stats{Results: len(s.index), PackBytes: s.end}
	for fp, e := range s.index {
		text, err := s.read(fp, e)
		if err != nil {
			return st, err
		}
		st.RawBytes += int64(len(text))
	}
	return st, nil
}
