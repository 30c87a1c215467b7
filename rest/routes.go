package rest

import "github.com/gin-gonic/gin"

// routes is the whole route list; docs/api.md describes each one.
func (s *server) routes(e *gin.Engine) {
	// Pulsar mounts its v2 resources under both /admin and /admin/v2; our
	// extensions follow them there.
	for _, prefix := range []string{"/admin", "/admin/v2"} {
		w := e.Group(prefix + "/worker")
		w.GET("/cluster", s.h(s.getCluster))
		w.GET("/cluster/leader", s.h(s.getLeader))
		w.GET("/cluster/leader/ready", s.h(s.leaderReady))
		w.GET("/assignments", s.h(s.getAssignments))
		w.GET("/connectors", s.h(s.getConnectors))
		w.PUT("/rebalance", s.h(s.rebalance))
		w.PUT("/drain", s.h(s.putDrain(false)))
		w.GET("/drain", s.h(s.getDrain(false)))
		w.PUT("/leader/drain", s.h(s.putDrain(true)))
		w.GET("/leader/drain", s.h(s.getDrain(true)))
		// Extensions.
		w.DELETE("/drain", s.h(s.deleteDrain(false)))
		w.DELETE("/leader/drain", s.h(s.deleteDrain(true)))
		w.PUT("/leader/cordon", s.h(s.cordon(true)))
		w.DELETE("/leader/cordon", s.h(s.cordon(false)))
		w.GET("/drains", s.h(s.listDrains))
		w.GET("/events", s.h(s.events))

		st := e.Group(prefix + "/worker-stats")
		st.GET("/metrics", s.h(s.workerMetrics))
		st.GET("/functionsmetrics", s.h(s.functionsMetrics))
	}

	f := e.Group("/admin/v3/functions")
	f.GET("/:tenant/:namespace", s.h(s.listFunctions))
	const fn = "/:tenant/:namespace/:name"
	f.GET(fn, s.h(withKey(s.getFunction)))
	f.POST(fn, s.h(s.write(s.createFunction)))
	f.PUT(fn, s.h(s.write(s.updateFunction)))
	f.DELETE(fn, s.h(s.write(s.deleteFunction)))
	f.GET(fn+"/download", s.h(withKey(s.download)))
	for _, p := range []string{fn, fn + "/:instanceId"} {
		f.GET(p+"/status", s.h(withKey(s.functionStatus)))
		f.GET(p+"/stats", s.h(withKey(s.functionStats)))
		f.POST(p+"/start", s.h(s.write(s.setState(true))))
		f.POST(p+"/stop", s.h(s.write(s.setState(false))))
		f.POST(p+"/restart", s.h(s.write(s.restart)))
	}

	e.GET("/metrics", s.h(s.prometheus))
	e.GET("/initialized", s.h(s.initialized))
	e.GET("/config", s.h(s.config))
}

// h adapts a handler that returns an error: errors go through the one
// error table (errors.go), or redirect to the leader for ErrNotLeader.
func (s *server) h(fn func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := fn(c); err != nil {
			s.fail(c, err)
		}
	}
}
