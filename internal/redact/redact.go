// Package redact removes the secrets a run knows from everything it writes:
// records, metrics, the cache, summaries, test output and the report. It
// works on typed values, replacing each secret inside every string they
// hold, so that no secret leaves the process whatever field it reached.
package redact

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
)

// Mark replaces a secret.
const Mark = "[REDACTED]"

// Minimum lengths of a secret: shorter values are not real secrets (a local
// server's placeholder key such as "x", a flag such as "true"), and
// replacing them would mangle ordinary text.
const (
	minSecret    = 6
	minEnvSecret = 8
)

// Redactor replaces a fixed set of secrets. The zero value and a nil
// *Redactor replace nothing.
type Redactor struct {
	secrets []string // longest first, so a secret inside another goes with it
}

// New returns a Redactor for the given secrets, leaving out those too short
// to be real.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.add(minSecret, secrets...)
	return r
}

func (r *Redactor) add(min int, secrets ...string) {
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < min || slices.Contains(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
		if esc := url.QueryEscape(s); esc != s {
			r.secrets = append(r.secrets, esc) // as it appears inside a URL
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// AddURL adds the credentials a URL carries: the password of its user
// information and the values of query parameters whose names look secret
// (key, token, secret, ...).
func (r *Redactor) AddURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if p, ok := u.User.Password(); ok {
		r.add(minSecret, p)
	}
	for name, values := range u.Query() {
		if SecretName(name) {
			r.add(minSecret, values...)
		}
	}
}

// AddEnv adds the values of the environment variables (NAME=value entries)
// whose names look secret (see SecretName).
func (r *Redactor) AddEnv(environ []string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && SecretName(name) {
			r.add(minEnvSecret, value)
		}
	}
}

// secretWords are the words of a name that say it holds a secret.
var secretWords = []string{"key", "apikey", "token", "secret", "password", "passwd", "pass", "credential",
	"credentials", "auth", "authorization", "cookie", "signature", "private"}

// SecretName reports whether a variable, header or parameter name looks
// like it holds a secret: one of its words (split at "_", "-" and ".") is
// KEY, TOKEN, SECRET, PASSWORD, AUTH, ... as in OPENAI_API_KEY,
// GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, Authorization, X-Api-Key,
// DB_PASSWORD. PWD, XAUTHORITY or DBUS_SESSION_BUS_ADDRESS do not.
func SecretName(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(secretWords, w) })
}

// String returns s with every secret replaced by Mark.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Mark)
		}
	}
	return s
}

// Value replaces the secrets in every string reachable from v, which must
// be a pointer: fields, elements, map keys and values, and byte slices
// (json.RawMessage) alike. Unexported fields are left alone.
func (r *Redactor) Value(v any) {
	if r == nil || len(r.secrets) == 0 {
		return
	}
	r.walk(reflect.ValueOf(v))
}

var byteSlice = reflect.TypeFor[[]byte]()

func (r *Redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Interface {
			// The value inside an interface cannot be set: replace it.
			inner := reflect.New(v.Elem().Type()).Elem()
			inner.Set(v.Elem())
			r.walk(inner)
			if v.CanSet() {
				v.Set(inner)
			}
			return
		}
		r.walk(v.Elem())
	case reflect.String:
		if v.CanSet() {
			v.SetString(r.String(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				r.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().ConvertibleTo(byteSlice) && v.Type().Elem().Kind() == reflect.Uint8 {
			if s := string(v.Bytes()); v.CanSet() && r.String(s) != s {
				v.SetBytes([]byte(r.String(s)))
			}
			return
		}
		for i := range v.Len() {
			r.walk(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var entries []kv
		for iter.Next() {
			k := reflect.New(iter.Key().Type()).Elem()
			k.Set(iter.Key())
			val := reflect.New(iter.Value().Type()).Elem()
			val.Set(iter.Value())
			entries = append(entries, kv{k, val})
		}
		for _, e := range entries {
			old := reflect.New(e.k.Type()).Elem()
			old.Set(e.k)
			r.walk(e.k)
			r.walk(e.v)
			v.SetMapIndex(old, reflect.Value{})
			v.SetMapIndex(e.k, e.v)
		}
	}
}
