package exceptions

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/policy"
)

// dateLayout is how expires dates are written.
const dateLayout = "2006-01-02"

// entry is one validated exceptions: item of the config file. rule and
// object are path.Match patterns, so "DRV02*" or "Node/*" cover several.
type entry struct {
	rule, object string
	reason       string
	expires      string    // as written, empty for never
	until        time.Time // last day the entry applies
	source       string
}

// compile checks every entry: rule, object and reason are required, object
// has the form Kind/namespace/name or Kind/name, and expires is a date.
func compile(list []config.Exception, source string) ([]entry, error) {
	if source == "" {
		source = config.DefaultFile
	}
	out := make([]entry, 0, len(list))
	for i, x := range list {
		where := fmt.Sprintf("%s: exceptions[%d]", source, i)
		e := entry{rule: strings.TrimSpace(x.Rule), object: strings.TrimSpace(x.Object),
			reason: strings.TrimSpace(x.Reason), expires: strings.TrimSpace(x.Expires), source: source}
		switch {
		case e.rule == "":
			return nil, fmt.Errorf("%s: no rule", where)
		case e.object == "":
			return nil, fmt.Errorf("%s: no object (Kind/namespace/name, or Kind/name for cluster-scoped kinds)", where)
		case e.reason == "":
			return nil, fmt.Errorf("%s: no reason; say why %s on %s is accepted", where, e.rule, e.object)
		}
		if n := strings.Count(e.object, "/"); n < 1 || n > 2 {
			return nil, fmt.Errorf("%s: object %q is not Kind/namespace/name or Kind/name", where, e.object)
		}
		for _, p := range []string{e.rule, e.object} {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%s: pattern %q: %v", where, p, err)
			}
		}
		if e.expires != "" {
			t, err := time.Parse(dateLayout, e.expires)
			if err != nil {
				return nil, fmt.Errorf("%s: expires %q is not a YYYY-MM-DD date", where, e.expires)
			}
			e.until = t
		}
		out = append(out, e)
	}
	return out, nil
}

// covers reports whether the entry names f's rule and object.
func (e entry) covers(f *policy.Finding) bool {
	ruleOK, _ := path.Match(e.rule, f.Rule)
	objOK, _ := path.Match(e.object, f.Object.String())
	return ruleOK && objOK
}

func (e entry) expired(today time.Time) bool {
	return !e.until.IsZero() && today.After(e.until)
}
