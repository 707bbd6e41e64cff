package dra

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Judge says whether claims can be allocated on a fleet's devices. Nodes
// that publish the same devices are judged once; each expression is
// compiled once and evaluated once per distinct device.
type Judge struct {
	classes  map[string]Class
	groups   []group
	compiled map[string]dracel.CompilationResult
	matches  map[matchKey]matchResult
	from     string
}

// group is nodes whose devices are the same.
type group struct {
	devices []Device
	keys    []string // each device's key, for the match cache
	nodes   int
}

type matchKey struct{ device, expr string }

type matchResult struct {
	ok  bool
	err string
}

// NewJudge judges against devices by node name, where from says where the
// devices were read (FromSlices or FromLabels).
func NewJudge(classes map[string]Class, byNode map[string][]Device, from string) *Judge {
	j := &Judge{classes: classes, compiled: map[string]dracel.CompilationResult{}, matches: map[matchKey]matchResult{}, from: from}
	index := map[string]int{}
	nodes := mapKeys(byNode)
	slices.Sort(nodes)
	for _, node := range nodes {
		devs := byNode[node]
		keys := make([]string, len(devs))
		for i, d := range devs {
			keys[i] = deviceKey(d)
		}
		k := strings.Join(keys, "\x01")
		if i, ok := index[k]; ok {
			j.groups[i].nodes++
			continue
		}
		index[k] = len(j.groups)
		j.groups = append(j.groups, group{devices: devs, keys: keys, nodes: 1})
	}
	return j
}

// Nodes is how many nodes publish any device.
func (j *Judge) Nodes() int {
	n := 0
	for _, g := range j.groups {
		if len(g.devices) > 0 {
			n += g.nodes
		}
	}
	return n
}

// Verdict is whether a claim's requests can be met on one node.
type Verdict struct {
	Fits    bool
	Message string
	Field   []any
}

// Claim judges one claim: some node must have, for every request, enough
// devices its class and selectors accept (requests are judged each on its
// own: two requests may count one device twice, so only a claim no node
// can ever meet is said to fail).
func (j *Judge) Claim(reqs []Request) Verdict {
	if len(reqs) == 0 || j.Nodes() == 0 {
		return Verdict{Fits: true}
	}
	for _, r := range reqs {
		for _, expr := range j.exprs(r) {
			if why := j.refused(expr); why != "" {
				return Verdict{Message: fmt.Sprintf("request %s: %s", r.Name, why), Field: r.Field}
			}
		}
	}
	for _, g := range j.groups {
		if j.groupHolds(g, reqs) {
			return Verdict{Fits: true}
		}
	}
	// Name the request no node meets alone, else the first.
	blame := reqs[0]
	for _, r := range reqs {
		if !j.anyGroupHolds(r) {
			blame = r
			break
		}
	}
	return Verdict{Message: j.why(blame), Field: blame.Field}
}

func (j *Judge) groupHolds(g group, reqs []Request) bool {
	for _, r := range reqs {
		if !j.holds(g, r) {
			return false
		}
	}
	return true
}

func (j *Judge) anyGroupHolds(r Request) bool {
	for _, g := range j.groups {
		if j.holds(g, r) {
			return true
		}
	}
	return false
}

// holds says whether g's devices meet r (or one of its alternatives).
func (j *Judge) holds(g group, r Request) bool {
	if len(r.FirstOf) > 0 {
		for _, sub := range r.FirstOf {
			if j.holds(g, sub) {
				return true
			}
		}
		return false
	}
	n, _ := j.count(g, r)
	return int64(n) >= r.Count
}

// count is how many of g's devices r accepts, and the first evaluation
// error met (a selector naming an attribute the device lacks fails, as
// the allocator fails it).
func (j *Judge) count(g group, r Request) (int, string) {
	n, firstErr := 0, ""
	for i, d := range g.devices {
		ok, err := j.accepts(g.keys[i], d, r)
		if err != "" && firstErr == "" {
			firstErr = err
		}
		if ok {
			n++
		}
	}
	return n, firstErr
}

// accepts says whether d passes r's class and r's selectors, under any of
// the product name's spellings.
func (j *Judge) accepts(key string, d Device, r Request) (bool, string) {
	if _, ok := j.classes[r.Class]; !ok {
		return false, ""
	}
	exprs := j.exprs(r)
	names := d.Names
	if len(names) == 0 {
		names = []string{""}
	}
	firstErr := ""
	for _, name := range names {
		dev, k := d.Device, key
		if name != "" {
			dev.Attributes = with(d.Attributes, "productName", str(name))
			k = key + "\x02" + name
		}
		all := true
		for _, expr := range exprs {
			m := j.match(k, dev, expr)
			if m.err != "" && firstErr == "" {
				firstErr = m.err
			}
			if !m.ok {
				all = false
				break
			}
		}
		if all {
			return true, ""
		}
	}
	return false, firstErr
}

func (j *Judge) exprs(r Request) []string {
	return append(slices.Clone(j.classes[r.Class].Selectors), r.Selectors...)
}

func (j *Judge) match(key string, d dracel.Device, expr string) matchResult {
	mk := matchKey{key, expr}
	if m, ok := j.matches[mk]; ok {
		return m
	}
	c := j.compile(expr)
	ok, _, err := c.DeviceMatches(context.Background(), d)
	m := matchResult{ok: ok && err == nil}
	if err != nil {
		m.err = err.Error()
	}
	j.matches[mk] = m
	return m
}

// refused says why the API server would refuse a selector, "" when it
// would not: longer than it accepts (resource/v1 types.go), not
// compiling, or of a worst-case cost above CELSelectorExpressionMaxCost
// (pkg/apis/resource/validation/validation.go:420-433 at v1.37.2). A
// repository's selector must not cost the run more than it would.
func (j *Judge) refused(expr string) string {
	if len(expr) > resourcev1.CELSelectorExpressionMaxLength {
		return fmt.Sprintf("a selector of %d bytes, longer than the API server accepts (%d)", len(expr), resourcev1.CELSelectorExpressionMaxLength)
	}
	c := j.compile(expr)
	switch {
	case c.Error != nil:
		return "its selector does not compile: " + c.Error.Detail
	case c.MaxCost > resourcev1.CELSelectorExpressionMaxCost:
		return fmt.Sprintf("its selector is too complex: a worst-case cost of %d, above the API server's limit (%d)", c.MaxCost, resourcev1.CELSelectorExpressionMaxCost)
	}
	return ""
}

func (j *Judge) compile(expr string) dracel.CompilationResult {
	if c, ok := j.compiled[expr]; ok {
		return c
	}
	c := dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expr, dracel.Options{})
	j.compiled[expr] = c
	return c
}

// why says what the nodes publish against what r asks, as a one-line
// reason with the nearest fix.
func (j *Judge) why(r Request) string {
	if len(r.FirstOf) > 0 {
		var names []string
		for _, s := range r.FirstOf {
			names = append(names, s.Name)
		}
		return fmt.Sprintf("no node has the devices of any of request %s's alternatives (%s); %s", r.Name, strings.Join(names, ", "), j.published(r.FirstOf[0]))
	}
	if _, ok := j.classes[r.Class]; !ok {
		return fmt.Sprintf("request %s names DeviceClass %s, which is not among the inputs nor one of NVIDIA's DRA driver (gpu.nvidia.com, mig.nvidia.com)", r.Name, r.Class)
	}
	best, err := 0, ""
	for _, g := range j.groups {
		n, e := j.count(g, r)
		best = max(best, n)
		if err == "" {
			err = e
		}
	}
	asked := fmt.Sprintf("%d device(s)", r.Count)
	if r.All {
		asked = "all matching devices (at least one)"
	}
	msg := fmt.Sprintf("request %s asks for %s of class %s", r.Name, asked, r.Class)
	if len(r.Selectors) > 0 {
		msg += " where " + strings.Join(strings.Fields(strings.Join(r.Selectors, " && ")), " ")
	}
	msg += fmt.Sprintf(", and no node has them (at most %d on one node)", best)
	if err != "" {
		msg += "; the selector fails on the devices: " + err
	}
	return msg + "; " + j.published(r)
}

// published says what the nodes' devices of r's class are.
func (j *Judge) published(r Request) string {
	class := j.classes[r.Class]
	counts := map[string]int{}
	for _, g := range j.groups {
		per := map[string]int{}
		for i, d := range g.devices {
			if ok, _ := j.accepts(g.keys[i], d, Request{Class: r.Class}); ok || class.Name == "" {
				per[d.Describe()]++
			}
		}
		for name, n := range per {
			counts[fmt.Sprintf("%d × %s", n, name)] += g.nodes
		}
	}
	if len(counts) == 0 {
		return fmt.Sprintf("no node publishes a device of class %s (%s)", r.Class, j.from)
	}
	var parts []string
	for k, nodes := range counts {
		parts = append(parts, fmt.Sprintf("%s on %d node(s)", k, nodes))
	}
	sort.Strings(parts)
	return fmt.Sprintf("the nodes publish %s (%s)", strings.Join(parts, ", "), j.from)
}

// deviceKey is a device written as one string: devices of one key are
// judged once.
func deviceKey(d Device) string {
	var b strings.Builder
	b.WriteString(d.Driver)
	attrs := mapKeys(d.Attributes)
	slices.Sort(attrs)
	for _, k := range attrs {
		a := d.Attributes[k]
		fmt.Fprintf(&b, "\x00%s=%s", k, attrString(a))
	}
	capacity := mapKeys(d.Capacity)
	slices.Sort(capacity)
	for _, k := range capacity {
		c := d.Capacity[k]
		fmt.Fprintf(&b, "\x00%s:%s", k, c.Value.String())
	}
	return b.String()
}

func attrString(a resourcev1.DeviceAttribute) string {
	switch {
	case a.StringValue != nil:
		return "s" + *a.StringValue
	case a.VersionValue != nil:
		return "v" + *a.VersionValue
	case a.IntValue != nil:
		return fmt.Sprintf("i%d", *a.IntValue)
	case a.BoolValue != nil:
		return fmt.Sprintf("b%t", *a.BoolValue)
	}
	return ""
}

func mapKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
