package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// assetLoader reads the BPE files embedded in tiktoken-go-loader, as that
// module's OfflineLoader does, in a fraction of its time: a run loads an
// encoding at its start, and the loader's allocation of a string and two
// slices per token (100,000 in cl100k_base, 200,000 in o200k_base) was a
// third of a small run's CPU time. Here every token's bytes are decoded
// into one buffer and the map's keys are slices of one string made from it.
type assetLoader struct{}

// LoadTiktokenBpe returns the ranks of the tokens of the named BPE file:
// lines of a base64 token, a space and its rank.
func (assetLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	name := path.Base(file)
	contents, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, err
	}
	type entry struct{ end, rank int }
	entries := make([]entry, 0, bytes.Count(contents, []byte{'\n'})+1)
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(contents)))
	for n, rest := 1, contents; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) == 0 {
			continue
		}
		token, rank, ok := bytes.Cut(line, []byte{' '})
		r, digits := 0, len(rank) > 0
		for _, c := range rank {
			digits = digits && '0' <= c && c <= '9'
			r = r*10 + int(c-'0')
		}
		if !ok || !digits {
			return nil, fmt.Errorf("%s:%d: not a base64 token, a space and a rank: %q", name, n, line)
		}
		if buf, err = base64.StdEncoding.AppendDecode(buf, token); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		entries = append(entries, entry{len(buf), r})
	}
	all := string(buf)
	ranks := make(map[string]int, len(entries))
	start := 0
	for _, e := range entries {
		ranks[all[start:e.end]] = e.rank
		start = e.end
	}
	return ranks, nil
}
