package drain

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Change is an edit of a budget, worded for people, with the field to edit.
type Change struct {
	Text  string
	Field []any // path inside the budget, for a line number
}

var (
	fieldMin  = []any{"spec", "minAvailable"}
	fieldMax  = []any{"spec", "maxUnavailable"}
	fieldSpec = []any{"spec"}
)

// ChangeFor words the smallest edit of b's spec after which it wants at
// most desired healthy pods, e.g. "lower trainer-pdb minAvailable from 4 to
// 3". A percentage moves to the nearest value that, rounded up as the
// disruption controller rounds it over b's expected pods, is enough.
// Budgets that can never allow a disruption as written (every pod without a
// controller under maxUnavailable or a percentage, a failed sync, neither
// field set) are told to use an integer minAvailable.
func ChangeFor(b *Budget, desired int32) Change {
	name, s, c := b.Name(), b.PDB.Spec, b.Count
	if desired < 0 {
		return Change{Field: fieldSpec, Text: fmt.Sprintf(
			"%s has %d healthy pods, too few for any minAvailable: make its pods Ready, or set %s unhealthyPodEvictionPolicy: AlwaysAllow", name, c.Healthy, name)}
	}
	if why := NeverAllows(b); why != "" {
		return Change{Field: fieldSpec, Text: fmt.Sprintf("set %s minAvailable to %d in place of %s (%s)", name, desired, b.Rule(), why)}
	}
	switch {
	case s.MaxUnavailable != nil && s.MaxUnavailable.Type == intstr.Int:
		return Change{Field: fieldMax, Text: fmt.Sprintf("raise %s maxUnavailable from %d to %d", name, s.MaxUnavailable.IntValue(), c.Expected-desired)}
	case s.MaxUnavailable != nil:
		cur := percent(s.MaxUnavailable)
		for q := cur + 1; q <= 100; q++ {
			if c.Expected-scaled(q, c.Expected) <= desired {
				return Change{Field: fieldMax, Text: fmt.Sprintf("raise %s maxUnavailable from %d%% to %d%%", name, cur, q)}
			}
		}
	case s.MinAvailable.Type == intstr.Int:
		return Change{Field: fieldMin, Text: fmt.Sprintf("lower %s minAvailable from %d to %d", name, s.MinAvailable.IntValue(), desired)}
	default:
		cur := percent(s.MinAvailable)
		for p := cur - 1; p >= 0; p-- {
			if scaled(p, c.Expected) <= desired {
				return Change{Field: fieldMin, Text: fmt.Sprintf("lower %s minAvailable from %d%% to %d%%", name, cur, p)}
			}
		}
	}
	return Change{Field: fieldSpec, Text: fmt.Sprintf("set %s minAvailable to %d in place of %s", name, desired, b.Rule())}
}

// GenericChange is the smallest change after which b allows one
// disruption wherever its pods are; "" when it already does.
func GenericChange(b *Budget) Change {
	if b.Count.Allowed > 0 {
		return Change{}
	}
	if NeverAllows(b) != "" {
		return ChangeFor(b, b.Count.Healthy-1)
	}
	return ChangeFor(b, min(b.Count.Desired, b.Count.Healthy-1))
}

// NeverAllows says why b, as written, allows no disruption whatever its
// numbers; "" when a smaller minAvailable or larger maxUnavailable helps.
func NeverAllows(b *Budget) string {
	s, c := b.PDB.Spec, b.Count
	switch {
	case s.MaxUnavailable == nil && s.MinAvailable == nil:
		return "it sets neither field, so the disruption controller expects 0 pods"
	case c.SyncErr != "":
		return "the disruption controller cannot count it: " + c.SyncErr
	case c.Expected <= 0 && (s.MaxUnavailable != nil || s.MinAvailable.Type == intstr.String) && len(c.Unmanaged) > 0:
		return "its pods have no controller, so maxUnavailable and percentages count 0 expected pods"
	}
	return ""
}

// percent reads "25%" as 25.
func percent(v *intstr.IntOrString) int32 {
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return int32(n)
}

// scaled is pct of total, rounded up as the disruption controller does.
func scaled(pct, total int32) int32 {
	v := intstr.FromString(strconv.Itoa(int(pct)) + "%")
	n, _ := intstr.GetScaledValueFromIntOrPercent(&v, int(total), true)
	return int32(n)
}
