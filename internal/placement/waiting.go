package placement

import (
	"container/heap"
	"slices"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/placement/layered"
)

// waiting are the evicted pods whose replacement found no node, in the
// order they began to wait (the scheduler's queue), kept per search key:
// an uncordon decides a key at its first pod, and once a pod of the key
// finds no node the key's later pods find none either (Uncordon). A
// rollout uncordons every node it upgrades while a full fleet's thousands
// of replacements wait; walking every waiting pod on each uncordon grew
// with the square of the fleet. Pods with spread constraints, searched on
// every uncordon, wait in a list of their own.
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
	// fifth of plan --all. The keys' lists are a layered map for the same
	// reason: a copy of the map per clone grew with the keys, thousands
	// on a fleet of many kinds of workload.
	borrowed bool
	added    []keyedWaiter
}

// queue is one key's waiting list and the waiting that made it, which
// alone appends to it in place: the others copy it first. The maker
// appends past what any clone sees, and a list is replaced, never
// changed in place.
type queue struct {
	q     []waiter
	maker *owner
}

// owner tells one waiting's lists from another's.
type owner struct{ _ byte }

// keyedWaiter is a waiter a clone added, with its list (spreadList or a
// search key).
type keyedWaiter struct {
	id int32
	x  waiter
}

// waiter is a waiting pod and its place in the queue.
type waiter struct {
	pod *drain.Pod
	n   int64
}

// add puts p at the end of the queue.
func (w *waiting) add(s *Sim, p *drain.Pod) {
	id := int32(spreadList)
	if !spreads(p) {
		id, _ = s.m.searchKeyOf(s.fleet, p)
	}
	w.enqueue(id, p)
}

// enqueue puts p at the end of list id.
func (w *waiting) enqueue(id int32, p *drain.Pod) {
	x := waiter{p, w.next}
	w.next++
	if w.borrowed {
		w.added = append(w.added, keyedWaiter{id, x})
		return
	}
	w.push(id, x)
}

// push appends x to list id.
func (w *waiting) push(id int32, x waiter) {
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
	w.keyed.Set(id, queue{append(q, x), w.me})
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
		w.push(a.id, a.x)
	}
}

// visit offers the waiting pods to try in queue order, across the keys
// and the spread list: try says whether the pod landed, and whether its
// key's later pods are to be left waiting (their key stays). A pod that
// landed leaves the queue: the ones at a list's head are sliced off, the
// list is copied only when a pod behind one that stays lands.
func (w *waiting) visit(try func(p *drain.Pod, id int32, spread bool) (landed, stays bool)) {
	w.own()
	h := &heads{}
	if len(w.spread) > 0 {
		h.items = append(h.items, head{id: spreadList, l: w.queue(spreadList)})
	}
	seen := map[int32]bool{}
	for id := range w.keyed.Keys() {
		if l, _ := w.keyed.Get(id); !seen[id] && len(l.q) > 0 {
			h.items = append(h.items, head{id: id, l: l})
		}
		seen[id] = true
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
		landed, stays := try(x.pod, top.id, top.id == spreadList)
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
		if stays || top.at == len(q) {
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
			w.set(id, queue{c.left, w.me})
			continue
		}
		w.set(id, queue{c.l.q[c.landed:], c.l.maker})
	}
}

// spreadList is the spread list's id among the keys' in visit.
const spreadList = -1

// queue is list id and its maker.
func (w *waiting) queue(id int32) queue {
	if id == spreadList {
		return queue{w.spread, w.me}
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
