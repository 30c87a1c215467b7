package embedded

import (
	"path/filepath"
	"testing"

	"github.com/fworker/fworker/cluster"
	"github.com/fworker/fworker/cluster/clustertest"
)

func TestConformance(t *testing.T) {
	clustertest.Run(t, func(t *testing.T) (cluster.Backend, func() cluster.Backend) {
		path := filepath.Join(t.TempDir(), "state.db")
		h, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		reopen := func() cluster.Backend {
			h.Close()
			h2, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h2.Close() })
			return h2
		}
		return h, reopen
	})
}
