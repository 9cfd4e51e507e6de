package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// LiteralCodes parses every non-test Go file under root and returns, one
// line each, the error codes written as string literals rather than as
// the domain.Code constants of domain/codes.go: the Code field of a
// domain.Error, normalize.Failure or job.Failure, the code argument of
// domain.Errorf, the engine's fail or client.IsCode, or a comparison with
// CodeOf. The constants are the one declaration of each
// code, which tests hold to docs/API.md and the OpenAPI document.
func LiteralCodes(root string) ([]string, error) {
	var found []string
	fset := token.NewFileSet()
	err := walkGo(root, func(path string) error {
		if filepath.ToSlash(mustRel(root, path)) == "domain/codes.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit := literalCode(f.Name.Name, n); lit != nil && lit.Value != `""` {
				pos := fset.Position(lit.Pos())
				found = append(found, fmt.Sprintf("%s:%d: error code %s is a literal; use its domain.Code constant",
					filepath.ToSlash(mustRel(root, path)), pos.Line, lit.Value))
			}
			return true
		})
		return nil
	})
	sort.Strings(found)
	return found, err
}

// codedTypes are the types whose Code field holds a domain.Code, by the
// package that declares them.
var codedTypes = map[string]string{"Error": "domain", "Failure": "normalize|job"}

// literalCode returns the string literal n uses as an error code, if any.
// pkg is the name of the package n is in.
func literalCode(pkg string, n ast.Node) *ast.BasicLit {
	switch n := n.(type) {
	case *ast.CompositeLit:
		if !isCodedType(pkg, n.Type) {
			return nil
		}
		for _, e := range n.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Code" {
					return stringLit(kv.Value)
				}
			}
		}
	case *ast.CallExpr:
		switch name := funcName(n.Fun); {
		case name == "Errorf" && (pkg == "domain" || isSelectorOf(n.Fun, "domain")) && len(n.Args) > 1:
			return stringLit(n.Args[1])
		case name == "fail" && pkg == "normalize" && len(n.Args) > 0:
			return stringLit(n.Args[0])
		case name == "IsCode" && len(n.Args) > 1:
			return stringLit(n.Args[1])
		}
	case *ast.BinaryExpr:
		if n.Op != token.EQL && n.Op != token.NEQ {
			return nil
		}
		for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
			if call, ok := pair[0].(*ast.CallExpr); ok && funcName(call.Fun) == "CodeOf" {
				return stringLit(pair[1])
			}
		}
	}
	return nil
}

// isCodedType reports whether t, written in package pkg, names one of the
// codedTypes: domain.Error, normalize.Failure, job.Failure, or the same
// unqualified inside its own package.
func isCodedType(pkg string, t ast.Expr) bool {
	if u, ok := t.(*ast.UnaryExpr); ok {
		t = u.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		pkgs, ok := codedTypes[t.Name]
		return ok && slices.Contains(strings.Split(pkgs, "|"), pkg)
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		pkgs, known := codedTypes[t.Sel.Name]
		return ok && known && slices.Contains(strings.Split(pkgs, "|"), x.Name)
	}
	return false
}

func stringLit(e ast.Expr) *ast.BasicLit {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		return lit
	}
	return nil
}

func funcName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func isSelectorOf(fun ast.Expr, pkg string) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg
}

// walkGo calls fn with every non-test Go file under root, skipping hidden
// folders, testdata and node_modules.
func walkGo(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		return fn(path)
	})
}
