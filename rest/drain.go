package rest

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/drain"
)

// The drain family. Pulsar's: PUT and GET /worker/drain (this worker) and
// /worker/leader/drain?workerId=. Ours: drain options on the PUTs, DELETE
// (undrain), PUT/DELETE /worker/leader/cordon, GET /worker/drains. All are
// leader-only; a non-leader redirects to the leader form on /admin/v2 with
// the resolved workerId (reference §1.3).

// target resolves the worker a drain-family request is about: the workerId
// parameter on the leader form when non-empty, else this worker.
func (s *server) target(c *gin.Context, leaderForm bool) (string, url.Values, error) {
	q, err := parseQuery(c.Request.URL.RawQuery)
	if err != nil {
		return "", nil, err
	}
	if leaderForm {
		if id := q.Get(qWorkerID); id != "" {
			return id, q, nil
		}
	}
	return s.b.Self().ID, q, nil
}

func (s *server) putDrain(leaderForm bool) func(*gin.Context) error {
	return func(c *gin.Context) error {
		id, q, err := s.target(c, leaderForm)
		if err != nil {
			return err
		}
		opts, err := parseDrainOptions(q, c.Request, s.opts.Now())
		if err != nil {
			return err
		}
		return s.onLeader(c, leaderTarget("drain", id, q), func() error {
			if err := s.b.Drain(c.Request.Context(), id, opts); err != nil {
				return err
			}
			noContent(c)
			return nil
		})
	}
}

// getDrain answers Pulsar's LongRunningProcessStatus fields (status,
// lastError) plus our progress fields: the drain.Record JSON. A worker
// without a record is Pulsar's 200 ERROR "not found", never a 404.
func (s *server) getDrain(leaderForm bool) func(*gin.Context) error {
	return func(c *gin.Context) error {
		id, _, err := s.target(c, leaderForm)
		if err != nil {
			return err
		}
		return s.onLeader(c, leaderTarget("drain", id, nil), func() error {
			rec, err := s.b.DrainStatus(c.Request.Context(), id)
			if _, ok := errors.AsType[*drain.NoRecordError](err); ok {
				rec, err = drain.NotFound(id), nil
			}
			if err != nil {
				return err
			}
			writeJSON(c.Writer, http.StatusOK, rec)
			return nil
		})
	}
}

// deleteDrain is our undrain: it removes the record and readmits the worker.
func (s *server) deleteDrain(leaderForm bool) func(*gin.Context) error {
	return func(c *gin.Context) error {
		id, _, err := s.target(c, leaderForm)
		if err != nil {
			return err
		}
		return s.onLeader(c, leaderTarget("drain", id, nil), func() error {
			if err := s.b.Undrain(c.Request.Context(), id); err != nil {
				return err
			}
			noContent(c)
			return nil
		})
	}
}

// cordon (PUT) and uncordon (DELETE): keep new instances off a worker
// without moving what it runs.
func (s *server) cordon(on bool) func(*gin.Context) error {
	return func(c *gin.Context) error {
		id, _, err := s.target(c, true)
		if err != nil {
			return err
		}
		return s.onLeader(c, leaderTarget("cordon", id, nil), func() error {
			if err := s.b.Cordon(c.Request.Context(), id, on); err != nil {
				return err
			}
			noContent(c)
			return nil
		})
	}
}

// listDrains returns every drain record the leader holds.
func (s *server) listDrains(c *gin.Context) error {
	return s.onLeader(c, "", func() error {
		recs, err := s.b.Drains(c.Request.Context())
		if err != nil {
			return err
		}
		if recs == nil {
			recs = []drain.Record{}
		}
		writeJSON(c.Writer, http.StatusOK, recs)
		return nil
	})
}
