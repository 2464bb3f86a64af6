package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Average Salary, by dept?", []string{"average", "salary", ",", "by", "dept", "?"}},
		{"score 0.35 and total_sales", []string{"score", "0.35", "and", "total_sales"}},
		{"end. Next", []string{"end", ".", "next"}},
		{"df['age'] > 30", []string{"df", "age", "30"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Words(tt.in), tt.in)
	}
}

// Keywords match whole words and phrases, never substrings (upstream's flaw).
func TestKeywordsMatchWholeWords(t *testing.T) {
	tests := []struct {
		text    string
		keyword string
		want    bool
	}{
		{"for each band", "or", false},
		{"for each band", "and", false},
		{"the minimum", "in", false},
		{"salary or bonus", "or", true},
		{"nearby shops", "by", false},
		{"grouped by city", "by", true},
		{"the address", "add", false},
		{"a summary", "sum", false},
		{"the sum of sales", "sum", true},
		{"greater than 5", "greater than", true},
		{"greater 5 than", "greater than", false},
		{"it is greater. Than that", "greater than", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, HasPhrase(Words(tt.text), Phrases(tt.keyword)), "%q in %q", tt.keyword, tt.text)
	}
}

func TestCountPhrasesPrefersLongest(t *testing.T) {
	list := Phrases("greater than", "equal to", "greater than or equal to")
	assert.Equal(t, 1, CountPhrases(Words("age greater than or equal to 30"), list))
	assert.Equal(t, 2, CountPhrases(Words("greater than 3 and equal to 4"), list))
}
