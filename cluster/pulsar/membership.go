package pulsar

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/scheduler"
)

// observed is membership and leadership as one stats poll saw them.
type observed struct {
	members []scheduler.WorkerInfo // sorted by id
	leader  scheduler.WorkerInfo
}

// loop is the session's own goroutine: it polls membership, reacts to the
// failover listener, and runs the leader's periodic maintenance.
func (s *session) loop() {
	defer s.wg.Done()
	poll := time.NewTicker(s.b.opts.MembershipPollInterval)
	defer poll.Stop()
	maint := time.NewTicker(s.b.opts.CompactionInterval)
	defer maint.Stop()
	failing := false
	for {
		select {
		case <-s.ctx.Done():
			if s.lead != nil {
				s.stopLeading()
			}
			return
		case <-s.events:
			s.log.Debug("pulsarcluster: failover event", "active", s.lastEvent.Load() == eventActive)
			if s.lastEvent.Load() == eventInactive && s.lead != nil {
				// Step down at once; the poll below says who leads now.
				v := s.View()
				s.publish(observed{members: v.Members})
			}
		case <-poll.C:
		case <-maint.C:
			s.maintain()
			continue
		}
		ctx, cancel := context.WithTimeout(s.ctx, max(5*time.Second, 2*s.b.opts.MembershipPollInterval))
		o, err := s.observe(ctx)
		cancel()
		switch {
		case err != nil && s.ctx.Err() == nil:
			if !failing {
				s.log.Warn("pulsarcluster: membership poll failed; keeping the last view", "err", err)
			}
			failing = true
		case err == nil:
			if failing {
				s.log.Info("pulsarcluster: membership poll works again")
			}
			failing = false
			s.publish(o)
		}
	}
}

// observe reads the participants from the coordination topic's stats.
func (s *session) observe(ctx context.Context) (observed, error) {
	st, err := s.b.admin.Topics().GetStatsWithContext(ctx, s.b.members.tn)
	if err != nil {
		return observed{}, fmt.Errorf("pulsarcluster: stats of %s: %w", s.b.members.name, err)
	}
	return parseParticipants(st), nil
}

func parseParticipants(st utils.TopicStats) observed {
	var o observed
	sub, ok := st.Subscriptions[participants]
	if !ok {
		return o
	}
	seen := map[string]bool{}
	for _, c := range sub.Consumers {
		w, ok := parseMember(c)
		if !ok || seen[w.ID] {
			continue
		}
		seen[w.ID] = true
		o.members = append(o.members, w)
		if c.ConsumerName == sub.ActiveConsumerName && sub.ActiveConsumerName != "" {
			o.leader = w
		}
	}
	slices.SortFunc(o.members, func(a, b scheduler.WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
	return o
}

// parseMember reads a participant from its WorkerInfo property, or else,
// like the Java worker, from "<workerId>:<host>:<port>".
func parseMember(c utils.ConsumerStats) (scheduler.WorkerInfo, bool) {
	var w scheduler.WorkerInfo
	if js := c.Metadata[propWorker]; js != "" {
		if err := json.Unmarshal([]byte(js), &w); err == nil && w.ID != "" {
			return w, true
		}
	}
	id := c.Metadata[propID]
	if id == "" {
		id = c.ConsumerName
	}
	parts := strings.Split(id, ":")
	if len(parts) != 3 || parts[0] == "" {
		return w, false
	}
	port, err := strconv.Atoi(parts[2])
	if err != nil {
		return w, false
	}
	return scheduler.WorkerInfo{ID: parts[0], Hostname: parts[1], Port: port}, true
}

// publish makes o the session's view, closing Changed if it differs. On
// becoming leader the leader's work starts before the view says so; on
// losing leadership it stops after.
func (s *session) publish(o observed) {
	leads := o.leader.ID == s.self.ID
	started := leads && s.lead == nil
	if started {
		s.startLeading()
	}
	s.mu.Lock()
	if !sameWorkers(s.view.Members, o.members) || !sameWorker(s.view.Leader, o.leader) {
		s.view.Members, s.view.Leader = o.members, o.leader
		close(s.changed)
		s.changed = make(chan struct{})
	}
	s.mu.Unlock()
	if started {
		s.warmUp()
	}
	if !leads && s.lead != nil {
		s.stopLeading()
	}
}

func sameWorkers(a, b []scheduler.WorkerInfo) bool {
	return slices.EqualFunc(a, b, sameWorker)
}

func sameWorker(a, b scheduler.WorkerInfo) bool {
	if a.ID != b.ID || a.Hostname != b.Hostname || a.Port != b.Port || (a.Capacity == nil) != (b.Capacity == nil) {
		return false
	}
	return a.Capacity == nil || *a.Capacity == *b.Capacity
}
