package placement

import (
	"container/heap"
	"slices"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
)

// waiting are the evicted pods whose replacement found no node, in the
// order they began to wait (the scheduler's queue), kept in lists per kind
// of request (freedon.go): an uncordon offers its node to the lists of the
// kinds it has room for, and a list's pods wait on once one finds the node
// full (Uncordon). A rollout uncordons every node it upgrades while a full
// fleet's thousands of replacements wait; walking every waiting pod, then
// every waiting search key, on each uncordon grew with the square of the
// fleet. Pods with spread constraints, searched on every uncordon, wait in
// a list of their own; pods decided per search key on every uncordon
// (those that tolerate a cordon, and the unkeyed kind) in another.
type waiting struct {
	next   int64
	spread []waiter
	keyed  layered.Map[int32, queue]
	me     *owner // what this waiting's own lists say; nil until it makes one
	// A clone's lists are its parent's (borrowed), and what it adds
	// waits apart (added) until a visit reorders its lists: appending to
	// a borrowed list copied the whole list, and a rollout clones its
	// simulation for every node a budget blocks (and for each step of
	// the search for the budget's smallest change), each adding to lists
	// of thousands of waiting replacements: at 15,000 nodes that was a
	// fifth of plan --all. The lists are a layered map for the same
	// reason.
	borrowed bool
	added    []keyedWaiter
}

// queue is one list and the waiting that made it, which alone appends to
// it in place: the others copy it first. The maker appends past what any
// clone sees, and a list is replaced, never changed in place. at is the
// room counts under which every search key of the list was found to fail:
// the counts only grow, so while they are at, a pod added since failed
// under them too.
type queue struct {
	q     []waiter
	maker *owner
	at    failAt
}

// failAt is the room counts a failure was found under, as a kind of
// request sees them: the moves, and the room freed for the kind.
type failAt struct {
	freed int
	fit   int32
}

// owner tells one waiting's lists from another's.
type owner struct{ _ byte }

// keyedWaiter is a waiter a clone added, with its list and the counts its
// search failed under.
type keyedWaiter struct {
	id int32
	x  waiter
	at failAt
}

// waiter is a waiting pod and its place in the queue.
type waiter struct {
	pod *drain.Pod
	n   int64
}

// add puts p, whose search just failed, at the end of the queue.
func (w *waiting) add(s *Sim, p *drain.Pod) {
	id := int32(spreadList)
	if !spreads(p) {
		id = perKey
		if _, k := s.m.searchKeyOf(s.fleet, p); !k.tolerates && k.fit != unkeyed {
			id = k.fit
		}
	}
	w.enqueue(id, p, s.failAt(id))
}

// enqueue puts p at the end of list id; its search failed under at.
func (w *waiting) enqueue(id int32, p *drain.Pod, at failAt) {
	x := waiter{p, w.next}
	w.next++
	if w.borrowed {
		w.added = append(w.added, keyedWaiter{id, x, at})
		return
	}
	w.push(id, x, at)
}

// push appends x to list id.
func (w *waiting) push(id int32, x waiter, at failAt) {
	if id == spreadList {
		w.spread = append(w.spread, x)
		return
	}
	if w.me == nil {
		w.me = new(owner)
	}
	l, _ := w.keyed.Get(id)
	q := l.q
	if l.maker != w.me {
		q = slices.Clip(q) // another's: the append copies it
	}
	if len(q) == 0 {
		l.at = at
	}
	w.keyed.Set(id, queue{append(q, x), w.me, l.at})
}

// failedAt says that every search key of list id was found to fail under
// at (an uncordon decided them all).
func (w *waiting) failedAt(id int32, at failAt) {
	if l, ok := w.keyed.Get(id); ok {
		l.at = at
		w.keyed.Set(id, l)
	}
}

// clone shares the lists with w, and what w added apart. The clone's
// spread list is clipped, so that once it owns its lists its appends
// copy; w's appends write past what the clone sees.
func (w *waiting) clone() waiting {
	return waiting{next: w.next, spread: slices.Clip(w.spread), keyed: w.keyed.Clone(), borrowed: true, added: slices.Clip(w.added)}
}

// own puts what a clone added at the end of its lists, copying each list
// it adds to once: the added waiters came after every waiter the lists
// held, so each list stays in queue order.
func (w *waiting) own() {
	if !w.borrowed {
		return
	}
	added := w.added
	w.borrowed, w.added = false, nil
	for _, a := range added {
		w.push(a.id, a.x, a.at)
	}
}

// visit offers the pods of the lists pick chooses to try, in queue order
// across them: try says whether the pod landed, and whether the list's
// later pods are to be left waiting (the list stops). A pod that landed
// leaves the queue: the ones at a list's head are sliced off, the list is
// copied only when a pod behind one that stays lands. It returns the
// lists picked.
func (w *waiting) visit(pick func(id int32, l queue) bool, try func(p *drain.Pod, id int32) (landed, stop bool)) []int32 {
	w.own()
	h := &heads{}
	if len(w.spread) > 0 && pick(spreadList, w.queue(spreadList)) {
		h.items = append(h.items, head{id: spreadList, l: w.queue(spreadList)})
	}
	seen := map[int32]bool{}
	for id := range w.keyed.Keys() {
		if l, _ := w.keyed.Get(id); !seen[id] && len(l.q) > 0 && pick(id, l) {
			h.items = append(h.items, head{id: id, l: l})
		}
		seen[id] = true
	}
	picked := make([]int32, len(h.items))
	for i, x := range h.items {
		picked[i] = x.id
	}
	heap.Init(h)
	type change struct {
		l      queue    // the list as the visit found it
		landed int      // the pods at the head that landed
		left   []waiter // once a pod behind one that stays landed: those that stay
	}
	changed := map[int32]*change{}
	for h.Len() > 0 {
		top := &h.items[0]
		q := top.l.q // try lands pods and adds none: the lists stay as found
		x := q[top.at]
		landed, stop := try(x.pod, top.id)
		c := changed[top.id]
		switch {
		case landed && c == nil && top.at == 0:
			changed[top.id] = &change{l: top.l, landed: 1}
		case landed && c != nil && c.left == nil && top.at == c.landed:
			c.landed++
		case landed && c == nil:
			changed[top.id] = &change{l: top.l, left: slices.Clone(q[:top.at])}
		case landed && c.left == nil:
			c.left = slices.Clone(q[c.landed:top.at])
		case !landed && c != nil && c.left != nil:
			c.left = append(c.left, x)
		}
		top.at++
		if stop || top.at == len(q) {
			if c := changed[top.id]; c != nil && c.left != nil {
				c.left = append(c.left, q[top.at:]...)
			}
			heap.Pop(h)
			continue
		}
		heap.Fix(h, 0)
	}
	for id, c := range changed {
		if c.left != nil {
			w.set(id, queue{c.left, w.me, c.l.at})
			continue
		}
		w.set(id, queue{c.l.q[c.landed:], c.l.maker, c.l.at})
	}
	return picked
}

// The lists besides the kinds of request: the pods with spread
// constraints, and those decided per search key.
const (
	spreadList = -1
	perKey     = -2
)

// queue is list id and its maker.
func (w *waiting) queue(id int32) queue {
	if id == spreadList {
		return queue{q: w.spread, maker: w.me}
	}
	l, _ := w.keyed.Get(id)
	return l
}

// set replaces list id; an emptied key stays, empty (a layered map keeps
// what its frozen levels hold).
func (w *waiting) set(id int32, l queue) {
	if id == spreadList {
		w.spread = l.q
		return
	}
	w.keyed.Set(id, l)
}

// heads is a heap of each list's next pod, the one that waits longest
// first, with the list it heads.
type heads struct{ items []head }

type head struct {
	id int32
	l  queue
	at int
}

func (h *heads) Len() int { return len(h.items) }
func (h *heads) Less(i, j int) bool {
	return h.items[i].l.q[h.items[i].at].n < h.items[j].l.q[h.items[j].at].n
}
func (h *heads) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *heads) Push(x any)    { h.items = append(h.items, x.(head)) }
func (h *heads) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
