package rest

import (
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/fworker/fworker/scheduler"
)

// Function reads under /admin/v3/functions (reference §7.6). Any worker
// serves them from its own view.

// functionKey is the path's tenant/namespace/name, validated (400).
func functionKey(c *gin.Context) (scheduler.FunctionKey, error) {
	k := scheduler.FunctionKey{Tenant: c.Param("tenant"), Namespace: c.Param("namespace"), Name: c.Param("name")}
	return k, k.Validate()
}

// instanceIndex is the path's instanceId; it must be a non-negative integer
// written plainly (400 otherwise). Routes without one mean all instances:
// -1.
func instanceIndex(c *gin.Context) (int, error) {
	v, ok := c.Params.Get("instanceId")
	if !ok {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || strconv.Itoa(n) != v {
		return 0, badRequest("Invalid instanceId %q: not a non-negative integer", v)
	}
	return n, nil
}

// withKey adapts a read that needs the function key and, on the instance
// routes, the instance index.
func withKey(fn func(c *gin.Context, k scheduler.FunctionKey, index int) error) func(*gin.Context) error {
	return func(c *gin.Context) error {
		k, err := functionKey(c)
		if err != nil {
			return err
		}
		index, err := instanceIndex(c)
		if err != nil {
			return err
		}
		return fn(c, k, index)
	}
}

func (s *server) listFunctions(c *gin.Context) error {
	// The name is a placeholder, so that tenant and namespace get the same
	// checks as everywhere else.
	k := scheduler.FunctionKey{Tenant: c.Param("tenant"), Namespace: c.Param("namespace"), Name: "_"}
	if err := k.Validate(); err != nil {
		return err
	}
	names, err := s.b.ListFunctions(c.Request.Context(), k.Tenant, k.Namespace)
	if err != nil {
		return err
	}
	if names == nil {
		names = []string{}
	}
	writeJSON(c.Writer, http.StatusOK, names)
	return nil
}

func (s *server) getFunction(c *gin.Context, k scheduler.FunctionKey, _ int) error {
	cfg, err := s.b.GetFunction(c.Request.Context(), k)
	if err != nil {
		return err
	}
	writeJSON(c.Writer, http.StatusOK, cfg)
	return nil
}

func (s *server) functionStatus(c *gin.Context, k scheduler.FunctionKey, index int) error {
	ctx := c.Request.Context()
	if index < 0 {
		st, err := s.b.FunctionStatus(ctx, k)
		if err != nil {
			return err
		}
		writeJSON(c.Writer, http.StatusOK, st)
		return nil
	}
	st, err := s.b.InstanceStatus(ctx, k, index)
	if err != nil {
		return err
	}
	writeJSON(c.Writer, http.StatusOK, st)
	return nil
}

func (s *server) functionStats(c *gin.Context, k scheduler.FunctionKey, index int) error {
	ctx := c.Request.Context()
	if index < 0 {
		st, err := s.b.FunctionStats(ctx, k)
		if err != nil {
			return err
		}
		writeJSON(c.Writer, http.StatusOK, st)
		return nil
	}
	st, err := s.b.InstanceStats(ctx, k, index)
	if err != nil {
		return err
	}
	writeJSON(c.Writer, http.StatusOK, st)
	return nil
}

// download streams the stored package as raw bytes.
func (s *server) download(c *gin.Context, k scheduler.FunctionKey, _ int) error {
	rc, err := s.b.OpenPackage(c.Request.Context(), k)
	if err != nil {
		return err
	}
	defer rc.Close()
	c.Header("Content-Type", "application/octet-stream")
	c.Status(http.StatusOK)
	if _, err := io.Copy(c.Writer, rc); err != nil {
		// Headers are gone; all that is left is to say so in the log.
		s.log.Warn("package download cut short", logPath, c.Request.URL.Path, logError, err)
	}
	return nil
}
