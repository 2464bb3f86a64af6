// Package redact removes the secrets a run knows from everything it writes:
// records, metrics, the cache, summaries, test output and the report. It
// works on typed values, replacing each secret inside every string they
// hold, so that no secret leaves the process whatever field it reached.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
	// kept are texts of the user's own (questions, expected answers) that
	// are never rewritten: they are data, not secrets of the run.
	kept map[string]bool
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
		if esc := jsonEscape(s); esc != s && !slices.Contains(r.secrets, esc) {
			r.secrets = append(r.secrets, esc) // as it appears inside JSON
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// Keep marks texts that are never rewritten, whatever secret they hold:
// the user's own questions and expected answers, which are data.
func (r *Redactor) Keep(texts ...string) {
	if r.kept == nil {
		r.kept = map[string]bool{}
	}
	for _, t := range texts {
		r.kept[t] = true
	}
}

// AddURL adds the credentials a URL carries (see URLSecrets).
func (r *Redactor) AddURL(raw string) {
	r.add(minSecret, URLSecrets(raw)...)
}

// URLSecrets returns the credentials an http(s) URL carries: the password
// of its user information (or the user name when it has no password: a
// token written as the user), and the values of query parameters whose
// names look secret (key, token, secret, ...).
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	} else if u.User != nil && u.User.Username() != "" {
		out = append(out, u.User.Username())
	}
	for name, values := range u.Query() {
		if SecretName(name) {
			out = append(out, values...)
		}
	}
	return out
}

// MaskURL returns raw with the credentials of URLSecrets replaced by Mark,
// whatever their length; a text that is no URL is returned as it is.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Mark)
	} else if u.User != nil && u.User.Username() != "" {
		u.User = url.User(Mark)
	}
	if u.RawQuery != "" {
		query := u.Query()
		changed := false
		for name, values := range query {
			if SecretName(name) {
				for i := range values {
					values[i] = Mark
				}
				changed = true
			}
		}
		if changed {
			u.RawQuery = query.Encode()
		}
	}
	out := u.String()
	return strings.NewReplacer("%5BREDACTED%5D", Mark, "%5bREDACTED%5d", Mark).Replace(out)
}

// HeaderSecrets returns what a header value gives away: the whole value,
// and for an authorization scheme ("Bearer T", "Basic B64", "Token T") the
// credentials alone, with a Basic pair's password decoded.
func HeaderSecrets(value string) []string {
	out := []string{value}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || strings.ContainsAny(scheme, "=:/") {
		return out
	}
	cred = strings.TrimSpace(cred)
	out = append(out, cred)
	if strings.EqualFold(scheme, "basic") {
		if pair, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, password, ok := strings.Cut(string(pair), ":"); ok {
				out = append(out, password)
			}
		}
	}
	return out
}

// LooksLikeCredential reports whether a value of a name that says nothing
// is a credential all the same: a URL with a password or a token in it,
// or a key of a well-known shape (sk-..., ghp_..., AKIA..., a long run of
// letters and digits without a space).
func LooksLikeCredential(value string) bool {
	value = strings.TrimSpace(value)
	if len(URLSecrets(value)) > 0 {
		return true
	}
	for _, prefix := range keyPrefixes {
		if strings.HasPrefix(value, prefix) && len(value) >= len(prefix)+12 {
			return true
		}
	}
	if len(value) < 32 || strings.ContainsAny(value, " /\\.:") {
		return false
	}
	letters, digits := false, false
	for _, c := range value {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters = true
		case c == '-', c == '_', c == '+', c == '=':
		default:
			return false
		}
	}
	return letters && digits
}

// keyPrefixes start API keys and tokens of well-known services.
var keyPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "AKIA", "ASIA", "AIza", "hf_", "ya29.", "eyJ"}

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

// String returns s with every secret replaced by Mark, kept texts (see
// Keep) excepted. A secret written with JSON's \u escapes (as a model may
// write one inside a tool call's arguments) is found too: the escapes are
// then decoded where that keeps the JSON valid.
func (r *Redactor) String(s string) string {
	if r == nil || len(r.secrets) == 0 || r.kept[s] {
		return s
	}
	s = r.replace(s)
	if strings.Contains(s, `\u`) || strings.Contains(s, `\/`) {
		if decoded := decodeUnicodeEscapes(s); decoded != s {
			if redacted := r.replace(decoded); redacted != decoded {
				return redacted
			}
		}
	}
	return s
}

func (r *Redactor) replace(s string) string {
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Mark)
		}
	}
	return s
}

// MayChangeJSON reports whether Value might change the value whose JSON
// encoding, as encoding/json writes it (every text a JSON string), is
// data: whether a secret, as it stands inside a JSON string or as it is,
// occurs in data, or an escape String decodes (a text holding "\u" or
// "\/"). When it reports false, Value leaves the value as it is, so a
// caller holding the JSON need not decode it to redact it.
func (r *Redactor) MayChangeJSON(data []byte) bool {
	if r == nil || len(r.secrets) == 0 {
		return false
	}
	if bytes.Contains(data, []byte(`\\u`)) || bytes.Contains(data, []byte(`\\/`)) {
		return true
	}
	for _, secret := range r.secrets {
		if bytes.Contains(data, []byte(secret)) || bytes.Contains(data, []byte(jsonEscape(secret))) {
			return true
		}
	}
	return false
}

// jsonEscape returns s as it stands inside a JSON string.
func jsonEscape(s string) string {
	data, _ := json.Marshal(s) // a string always encodes
	return string(data[1 : len(data)-1])
}

// decodeUnicodeEscapes decodes the \uXXXX escapes of s (surrogate pairs
// included) whose characters need no escape inside a JSON string, and \/,
// leaves every other escape, an escaped backslash's followers included,
// as it is.
func decodeUnicodeEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == '/' { // JSON's escaped solidus
			b.WriteByte('/')
			i++
			continue
		}
		if s[i+1] != 'u' {
			b.WriteString(s[i : i+2]) // another escape, or an escaped backslash
			i++
			continue
		}
		c, n := unicodeEscape(s[i:])
		if n == 0 || c < 0x20 || c == '"' || c == '\\' || c == 0x2028 || c == 0x2029 {
			b.WriteByte(s[i])
			continue
		}
		b.WriteRune(c)
		i += n - 1
	}
	return b.String()
}

// unicodeEscape reads the \uXXXX escape (or surrogate pair of two) that
// starts s, returning its character and length, or a length of 0.
func unicodeEscape(s string) (rune, int) {
	hex := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(v), err == nil
	}
	c, ok := hex(s)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(c) {
		return c, 6
	}
	low, ok := hex(s[6:])
	if !ok {
		return 0, 0
	}
	if pair := utf16.DecodeRune(c, low); pair != utf8.RuneError {
		return pair, 12
	}
	return 0, 0
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
