// Package apidoc finds the exported names of a Go package that have no
// doc comment: what go doc would show bare. Its test holds the module's
// public packages (evaltest, scoring, cache, report) to having none.
package apidoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strings"
)

// Undocumented lists the exported names of the package in dir (test files
// aside) that have no doc comment, as "file:line: name": functions, types,
// methods and fields of exported types ("Type.Field"), and variables and
// constants (a group's comment documents its names; a line comment
// documents a field, variable or constant).
func Undocumented(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", dir, err)
	}
	var out []string
	bare := func(pos token.Pos, name string) {
		p := fset.Position(pos)
		out = append(out, fmt.Sprintf("%s:%d: %s", p.Filename, p.Line, name))
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Doc == nil && exportedReceiver(d) {
						bare(d.Pos(), d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
								bare(s.Pos(), s.Name.Name)
							}
							if st, ok := s.Type.(*ast.StructType); ok && s.Name.IsExported() {
								bareFields(st, s.Name.Name, bare)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
									bare(n.Pos(), n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// bareFields reports the exported fields of a struct type without a doc
// or line comment (a comment documents the names it stands before, as in
// "A, B int // ...").
func bareFields(st *ast.StructType, typeName string, bare func(token.Pos, string)) {
	for _, f := range st.Fields.List {
		if f.Doc != nil || f.Comment != nil {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				bare(n.Pos(), typeName+"."+n.Name)
			}
		}
	}
}

// exportedReceiver reports whether a function is not a method, or a
// method of an exported type: go doc shows no method of an unexported one.
func exportedReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// PackageDocs lists the files of the package in dir (test files aside)
// whose comment is the package's doc comment: go doc shows them all, one
// after the other, so a package should have one.
func PackageDocs(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") },
		parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", dir, err)
	}
	var out []string
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			if f.Doc != nil {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
