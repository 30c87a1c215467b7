package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/rest"
	"github.com/fworker/fworker/scheduler"
)

// runsOn is the worker that should run the instance now: the move target
// once the source was told to stop.
func runsOn(a scheduler.Assignment) string {
	if m := a.Move; m != nil && m.Phase != scheduler.Starting {
		return m.Target
	}
	return a.Worker
}

func (s *Service) FunctionStatus(ctx context.Context, key scheduler.FunctionKey) (utils.FunctionStatus, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionStatus{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	st := utils.FunctionStatus{NumInstances: f.Spec.Parallelism, Instances: []utils.FunctionInstanceStatus{}}
	for i := range f.Spec.Parallelism {
		d, err := s.InstanceStatus(ctx, key, i)
		if err != nil {
			d = utils.FunctionInstanceStatusData{Err: err.Error()}
		}
		if d.Running {
			st.NumRunning++
		}
		st.Instances = append(st.Instances, utils.FunctionInstanceStatus{InstanceID: i, Status: d})
	}
	return st, nil
}

// InstanceStatus answers for an instance that runs here from the runtime,
// and asks the worker it runs on otherwise (once: forwarded requests are
// answered locally).
func (s *Service) InstanceStatus(ctx context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatusData, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionInstanceStatusData{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	if index < 0 || index >= f.Spec.Parallelism {
		return utils.FunctionInstanceStatusData{}, &scheduler.InvalidError{Field: "instanceId", Detail: fmt.Sprintf("%d is not between 0 and %d", index, f.Spec.Parallelism-1)}
	}
	id := scheduler.InstanceID{Function: key, Index: index}
	a, assigned := s.mirror.assignment(id)
	if !assigned {
		return utils.FunctionInstanceStatusData{Err: "instance is not assigned to any worker"}, nil
	}
	if a.Stopped {
		return utils.FunctionInstanceStatusData{WorkerID: a.Worker, Err: "stopped"}, nil
	}
	owner := runsOn(a)
	if owner == s.opts.Self.ID || rest.IsForwarded(ctx) {
		return s.localStatus(id, owner), nil
	}
	return s.remoteStatus(ctx, owner, id)
}

func (s *Service) localStatus(id scheduler.InstanceID, owner string) utils.FunctionInstanceStatusData {
	st, ok := s.rt.Status(id)
	d := utils.FunctionInstanceStatusData{WorkerID: owner, LatestUserExceptions: []utils.ExceptionInformation{}, LatestSystemExceptions: []utils.ExceptionInformation{}}
	if !ok || owner != s.opts.Self.ID {
		d.Err = "not running on " + s.opts.Self.ID
		return d
	}
	d.Running = st.Running && st.State == "running"
	d.NumRestarts = int64(st.NumRestarts)
	d.Err = st.LastError
	return d
}

func (s *Service) remoteStatus(ctx context.Context, owner string, id scheduler.InstanceID) (utils.FunctionInstanceStatusData, error) {
	var w *scheduler.WorkerInfo
	for _, m := range s.sess.View().Members {
		if m.ID == owner {
			w = &m
		}
	}
	if w == nil {
		return utils.FunctionInstanceStatusData{WorkerID: owner, Err: "worker " + owner + " is not a member"}, nil
	}
	url := fmt.Sprintf("http://%s:%d/admin/v3/functions/%s/%s/%s/%d/status", w.Hostname, w.Port,
		id.Function.Tenant, id.Function.Namespace, id.Function.Name, id.Index)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return utils.FunctionInstanceStatusData{}, err
	}
	req.Header.Set(rest.ForwardedHeader, "true")
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return utils.FunctionInstanceStatusData{WorkerID: owner, Err: err.Error()}, nil
	}
	defer resp.Body.Close()
	var d utils.FunctionInstanceStatusData
	if resp.StatusCode != http.StatusOK {
		return utils.FunctionInstanceStatusData{WorkerID: owner, Err: "worker " + owner + " answered " + resp.Status}, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		return utils.FunctionInstanceStatusData{WorkerID: owner, Err: err.Error()}, nil
	}
	return d, nil
}

// Stats: the process runtime does not see message counts (functions built
// on the Go SDK will report them); every counter is zero until then.
func (s *Service) FunctionStats(_ context.Context, key scheduler.FunctionKey) (utils.FunctionStats, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionStats{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	st := utils.FunctionStats{Instances: []utils.FunctionInstanceStats{}}
	for i := range f.Spec.Parallelism {
		st.Instances = append(st.Instances, utils.FunctionInstanceStats{InstanceID: int64(i), Metrics: utils.FunctionInstanceStatsData{UserMetrics: map[string]float64{}}})
	}
	return st, nil
}

func (s *Service) InstanceStats(_ context.Context, key scheduler.FunctionKey, index int) (utils.FunctionInstanceStatsData, error) {
	f, ok := s.mirror.function(key)
	if !ok {
		return utils.FunctionInstanceStatsData{}, &scheduler.FunctionNotFoundError{Key: key}
	}
	if index < 0 || index >= f.Spec.Parallelism {
		return utils.FunctionInstanceStatsData{}, &scheduler.InvalidError{Field: "instanceId", Detail: fmt.Sprintf("%d is not between 0 and %d", index, f.Spec.Parallelism-1)}
	}
	return utils.FunctionInstanceStatsData{UserMetrics: map[string]float64{}}, nil
}
