package rest

import (
	"net/http"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/scheduler"
)

// Pulsar's /worker routes that any worker answers from its own view.

// workerInfo is Pulsar's three-field WorkerInfo; our capacity stays out of
// the wire shape.
func workerInfo(w scheduler.WorkerInfo) utils.WorkerInfo {
	return utils.WorkerInfo{WorkerID: w.ID, WorkerHostname: w.Hostname, Port: w.Port}
}

func (s *server) getCluster(c *gin.Context) error {
	members := s.b.Members()
	out := make([]utils.WorkerInfo, 0, len(members))
	for _, m := range members {
		out = append(out, workerInfo(m))
	}
	writeJSON(c.Writer, http.StatusOK, out)
	return nil
}

func (s *server) getLeader(c *gin.Context) error {
	l, ok := s.b.Leader()
	if !ok {
		return ErrNoLeader
	}
	writeJSON(c.Writer, http.StatusOK, workerInfo(l))
	return nil
}

// leaderReady is Pulsar's readiness probe: true on the leader, and the
// not-initialized 503 on every other worker.
func (s *server) leaderReady(c *gin.Context) error {
	if !s.b.IsLeader() {
		return errNotInitialized
	}
	writeJSON(c.Writer, http.StatusOK, true)
	return nil
}

func (s *server) getAssignments(c *gin.Context) error {
	a := s.b.Assignments()
	if a == nil {
		a = map[string][]string{}
	}
	writeJSON(c.Writer, http.StatusOK, a)
	return nil
}

// getConnectors: fworker runs no connectors; Pulsar's empty list.
func (s *server) getConnectors(c *gin.Context) error {
	writeJSON(c.Writer, http.StatusOK, []utils.ConnectorDefinition{})
	return nil
}

// rebalance is leader-only; a non-leader redirects with the request's own
// path, as the Java worker does.
func (s *server) rebalance(c *gin.Context) error {
	return s.onLeader(c, "", func() error {
		if err := s.b.Rebalance(c.Request.Context()); err != nil {
			return err
		}
		noContent(c)
		return nil
	})
}
