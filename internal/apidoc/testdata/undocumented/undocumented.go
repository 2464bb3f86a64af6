// Package undocumented has exported names with and without doc comments.
package undocumented

// Documented is documented.
func Documented() {}

func Bare() {}

type BareType struct{}

// Kind is documented; its method String is not.
type Kind int

func (Kind) String() string { return "" }

type hidden int

func (hidden) String() string { return "" } // a method of an unexported type: go doc shows none

// Grouped constants share the group's comment.
const (
	One = 1
	Two = 2
)

var BareVar = 3

var Commented = 4 // a line comment documents it

// Record is documented, and some of its fields.
type Record struct {
	// Name is documented.
	Name   string
	Bare   string
	Line   int // a line comment documents it
	hidden int
	// A and B share a comment.
	A, B int
}
