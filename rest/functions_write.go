package rest

import (
	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/scheduler"
)

// Function writes under /admin/v3/functions: create, update, delete, start,
// stop, restart. They are leader-only; a non-leader checks the path and
// forwards the request, body unread, to the leader (proxy.go).

// write validates the path, then runs fn on the leader or proxies from a
// non-leader. Should the leader lose leadership during fn, the client gets
// a 307 to the new leader with the same method and URL.
func (s *server) write(fn func(c *gin.Context, k scheduler.FunctionKey, index int) error) func(*gin.Context) error {
	return withKey(func(c *gin.Context, k scheduler.FunctionKey, index int) error {
		if !s.b.IsLeader() {
			return s.proxyToLeader(c)
		}
		return fn(c, k, index)
	})
}

func (s *server) createFunction(c *gin.Context, k scheduler.FunctionKey, _ int) error {
	u, err := s.readUpload(c, k, true)
	if err != nil {
		return err
	}
	defer u.Close()
	if err := s.b.CreateFunction(c.Request.Context(), u.cfg, *u.pkg); err != nil {
		return err
	}
	noContent(c)
	return nil
}

func (s *server) updateFunction(c *gin.Context, k scheduler.FunctionKey, _ int) error {
	u, err := s.readUpload(c, k, false)
	if err != nil {
		return err
	}
	defer u.Close()
	if err := s.b.UpdateFunction(c.Request.Context(), u.cfg, u.pkg); err != nil {
		return err
	}
	noContent(c)
	return nil
}

func (s *server) deleteFunction(c *gin.Context, k scheduler.FunctionKey, _ int) error {
	if err := s.b.DeleteFunction(c.Request.Context(), k); err != nil {
		return err
	}
	noContent(c)
	return nil
}

// setState starts (running) or stops an instance, or all with index -1.
func (s *server) setState(running bool) func(*gin.Context, scheduler.FunctionKey, int) error {
	return func(c *gin.Context, k scheduler.FunctionKey, index int) error {
		if err := s.b.SetInstanceState(c.Request.Context(), k, index, running); err != nil {
			return err
		}
		noContent(c)
		return nil
	}
}

func (s *server) restart(c *gin.Context, k scheduler.FunctionKey, index int) error {
	if err := s.b.RestartInstance(c.Request.Context(), k, index); err != nil {
		return err
	}
	noContent(c)
	return nil
}
