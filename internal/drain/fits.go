package drain

// Fits reports whether every eviction from node passes its budget even if
// no evicted pod ever came back: no pod under two budgets, no unready pod
// (whose fate depends on the eviction policy), and each budget allowing at
// least as many disruptions as it has pods there. Then a simulation's Room
// (internal/placement) would find nothing, and is not needed.
func (m *Model) Fits(node string) bool {
	need := map[*Budget]int32{}
	for _, p := range m.onNode[node] {
		if p.Verdict.Stays != "" || p.skipsBudgets() || len(p.Budgets) == 0 {
			continue
		}
		if len(p.Budgets) > 1 || !p.Healthy() {
			return false
		}
		need[p.Budgets[0]]++
	}
	for b, n := range need {
		if b.Count.Allowed < n {
			return false
		}
	}
	return true
}
