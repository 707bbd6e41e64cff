package layered

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestLayeredActsAsCopies holds layered maps to what copying them would
// do: a long line of writes and clones, each clone written on too, each
// read against a plain map copied at the clone.
func TestLayeredActsAsCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type side struct {
		l    Map[int, int]
		want map[int]int
	}
	main := &side{want: map[int]int{}}
	var clones []*side
	for step := range 20000 {
		k, v := r.IntN(3000), step
		switch {
		case r.IntN(50) == 0: // clone the main map; it and the clone go on apart
			clones = append(clones, &side{l: main.l.Clone(), want: maps.Clone(main.want)})
		case len(clones) > 0 && r.IntN(4) == 0:
			c := clones[r.IntN(len(clones))]
			c.l.Set(k, v)
			c.want[k] = v
		default:
			main.l.Set(k, v)
			main.want[k] = v
		}
	}
	if n := len(main.l.frozen); n > 20 {
		t.Errorf("%d frozen levels after %d clones: merging does not keep them few", n, len(clones))
	}
	for i, s := range append(clones, main) {
		for k := range 3000 {
			got, ok := s.l.Get(k)
			want, wok := s.want[k]
			if ok != wok || got != want {
				t.Fatalf("map %d, key %d: got %d %v, want %d %v", i, k, got, ok, want, wok)
			}
		}
	}
}
