package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// choose is C(n, k) computed directly, for small n.
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func TestPassAtKAndPassHatK(t *testing.T) {
	// 3 passes in 5 runs: the figures of the repeats' acceptance.
	assert.InDelta(t, 0.6, PassAtK(5, 3, 1), 1e-12)
	assert.InDelta(t, 0.9, PassAtK(5, 3, 2), 1e-12)
	assert.InDelta(t, 0.6, PassHatK(5, 3, 1), 1e-12)
	assert.InDelta(t, 0.3, PassHatK(5, 3, 2), 1e-12)
	assert.Equal(t, 1.0, PassAtK(5, 3, 3), "3 draws from 2 fails must include a pass")
	assert.Equal(t, 0.0, PassHatK(5, 3, 4))
	for n := 1; n <= 12; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				assert.InDelta(t, 1-choose(n-c, k)/choose(n, k), PassAtK(n, c, k), 1e-12, "pass@%d n=%d c=%d", k, n, c)
				assert.InDelta(t, choose(c, k)/choose(n, k), PassHatK(n, c, k), 1e-12, "pass^%d n=%d c=%d", k, n, c)
			}
		}
	}
	assert.InDelta(t, 0.5, PassHatK(1000, 500, 1), 1e-12, "large n stays exact")
	for _, bad := range [][3]int{{5, 3, 0}, {5, 3, 6}, {5, 6, 1}, {5, -1, 1}, {0, 0, 1}} {
		assert.True(t, math.IsNaN(PassAtK(bad[0], bad[1], bad[2])), "%v", bad)
		assert.True(t, math.IsNaN(PassHatK(bad[0], bad[1], bad[2])), "%v", bad)
	}
}

func TestWilson(t *testing.T) {
	lo, hi := Wilson(8, 10, 1.96)
	assert.InDelta(t, 0.4902, lo, 1e-4)
	assert.InDelta(t, 0.9433, hi, 1e-4)
	lo, hi = Wilson(0, 10, 1.96)
	assert.Equal(t, 0.0, lo)
	assert.InDelta(t, 0.2775, hi, 1e-4)
	lo, hi = Wilson(10, 10, 1.96)
	assert.InDelta(t, 0.7225, lo, 1e-4)
	assert.Equal(t, 1.0, hi)
	lo, hi = Wilson(0, 0, 1.96)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}

func TestMcNemar(t *testing.T) {
	assert.Equal(t, 1.0, McNemar(0, 0))
	assert.Equal(t, 1.0, McNemar(1, 0), "one flip is no evidence")
	assert.InDelta(t, 2*math.Pow(0.5, 30), McNemar(30, 0), 1e-15)
	// 10 one way, 2 the other: 2 * P(X <= 2 | 12, 1/2) = 2 * 79/4096.
	assert.InDelta(t, 2*79.0/4096, McNemar(10, 2), 1e-12)
	assert.Equal(t, McNemar(10, 2), McNemar(2, 10), "two-sided")
	assert.Equal(t, 1.0, McNemar(5, 5))
}

func TestFisher(t *testing.T) {
	// The tea-tasting table: 3 1 / 1 3 gives 0.4857.
	assert.InDelta(t, 0.4857, Fisher(3, 1, 1, 3), 1e-4)
	// Passed 5 of 5 before, 0 of 5 now.
	assert.InDelta(t, 2.0/252, Fisher(5, 0, 0, 5), 1e-12)
	assert.InDelta(t, 1.0, Fisher(3, 2, 3, 2), 1e-9)
	assert.Equal(t, 1.0, Fisher(0, 0, 0, 0))
	assert.InDelta(t, Fisher(1, 9, 11, 3), Fisher(11, 3, 1, 9), 1e-12, "symmetric in the rows")
	assert.InDelta(t, 0.002759, Fisher(1, 9, 11, 3), 1e-6)
}
