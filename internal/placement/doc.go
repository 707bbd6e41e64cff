// Package placement puts the pods of the drain model (internal/drain) on
// nodes and replays drains on them: where the files' pods run, and where
// evicted replicas land afterwards.
//
// From files, the pods are placed (placer.go) with internal/sched, the
// pods and GPUs each node allocates (capacity.go), required pod
// anti-affinity (affinity.go) and topology spread (spread.go); a cluster's
// pods are counted where they run (model.go). Sim (sim.go) then drains
// nodes one eviction at a time, as the API server uses a budget up pod by
// pod, and Room (room.go) finds the smallest change of each budget that
// refuses. Its searches for a replacement's node test only nodes that can
// have room (roomy.go) and remember what failed until room is freed
// (noroom.go), which keeps a full fleet from costing a walk of every node
// per pod; an uncordon decides the waiting replacements per search
// (uncordon.go). A Sim's clone shares what the Sim had moved (its maps
// are layered.Maps): a rollout clones its simulation for every node a
// budget blocks; the nodes a Sim keeps apart are nodeset.Sets. The pods'
// scheduling terms are read with internal/sched.
package placement
