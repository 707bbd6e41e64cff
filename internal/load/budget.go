package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// The default bounds of what a run reads: far above the target fleet
// (5,000 nodes, 20,000 workloads and 5,000 budgets are about 30 MB of
// manifests, and a kubectl dump of the same a few times that), far below
// what would take the machine down.
const (
	DefaultMaxFile  = 256 << 20
	DefaultMaxTotal = 1 << 30
)

// budget counts the bytes every worker reads against the limits.
type budget struct {
	file, total int64
	used        atomic.Int64
}

func newBudget(opt Options) *budget {
	b := &budget{file: opt.MaxFile, total: opt.MaxTotal}
	if b.file <= 0 {
		b.file = DefaultMaxFile
	}
	if b.total <= 0 {
		b.total = DefaultMaxTotal
	}
	return b
}

// read reads the source named name ("-" is stdin) up to the limits, so an
// endless stream fails naming it rather than growing without end. It
// counts bytes as they arrive: several files read at once cannot overshoot
// the total by more than one read each.
func (b *budget) read(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, fileerr.Reason(err))
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(&counted{r: io.LimitReader(r, b.file+1), b: b, name: name})
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > b.file {
		return nil, fmt.Errorf("%s: larger than %s, the most one input may be (--max-file-size)", name, size(b.file))
	}
	return data, nil
}

// counted adds what it reads to the budget's total and fails past it.
type counted struct {
	r    io.Reader
	b    *budget
	name string
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.b.used.Add(int64(n)) > c.b.total {
		return n, fmt.Errorf("%s: the inputs are larger than %s, the most a run reads (--max-input-size)", c.name, size(c.b.total))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("%s: %w", c.name, fileerr.Reason(err))
	}
	return n, err
}

func size(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
