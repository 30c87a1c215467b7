package pulsar

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"
	pulsarlog "github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

// Options configure a Backend. Topic names are either complete
// ("persistent://tenant/ns/name") or a bare name inside Namespace. The
// state and packages topics must be persistent (they are compacted).
type Options struct {
	ServiceURL string // binary protocol, e.g. pulsar://127.0.0.1:6650
	AdminURL   string // admin REST API, e.g. http://127.0.0.1:8080
	Namespace  string // default "public/functions"

	CoordinationTopic string // default "coordinate": the "participants" failover subscription; created with one partition
	StateTopic        string // default "fworker-state": compacted scheduling state
	ReportsTopic      string // default "fworker-reports": worker observations
	PackagesTopic     string // default "fworker-packages": compacted function packages

	// MembershipPollInterval is how often each session reads the
	// coordination topic's stats (default 1s).
	MembershipPollInterval time.Duration
	// CompactionInterval is how often the leader compacts the state and
	// packages topics when they changed, and purges removal markers
	// older than TombstoneDelay (default 10m).
	CompactionInterval time.Duration
	// TombstoneDelay is how long a removal stays a readable marker before
	// the leader replaces it with a real tombstone (default 30m). A
	// follower that lags less than this never misses a removal.
	TombstoneDelay time.Duration
	// OperationTimeout bounds client operations: create producer, reader,
	// consumer, admin calls (default 30s).
	OperationTimeout time.Duration

	Log *slog.Logger

	// Optional authentication and TLS, for both the client and the admin API.
	Token                      string // token authentication
	TLSTrustCertsFile          string
	TLSCertFile, TLSKeyFile    string // TLS client authentication
	TLSAllowInsecureConnection bool
}

// Defaults.
const (
	DefaultNamespace       = "public/functions"
	DefaultCoordination    = "coordinate"
	DefaultStateTopic      = "fworker-state"
	DefaultReportsTopic    = "fworker-reports"
	DefaultPackagesTopic   = "fworker-packages"
	participants           = "participants" // the failover subscription, as in the Java worker
	compactionSubscription = "__compaction" // created by the broker's compactor
)

// topic is a resolved topic name.
type topic struct {
	name string // persistent://tenant/ns/name
	tn   utils.TopicName
}

type topics struct {
	coord, state, reports, packages topic
}

func (o *Options) setDefaults() error {
	if o.ServiceURL == "" {
		return errors.New("pulsarcluster: ServiceURL is required")
	}
	if o.AdminURL == "" {
		return errors.New("pulsarcluster: AdminURL is required")
	}
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&o.Namespace, DefaultNamespace)
	def(&o.CoordinationTopic, DefaultCoordination)
	def(&o.StateTopic, DefaultStateTopic)
	def(&o.ReportsTopic, DefaultReportsTopic)
	def(&o.PackagesTopic, DefaultPackagesTopic)
	dur := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	dur(&o.MembershipPollInterval, time.Second)
	dur(&o.CompactionInterval, 10*time.Minute)
	dur(&o.TombstoneDelay, 30*time.Minute)
	dur(&o.OperationTimeout, 30*time.Second)
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return nil
}

func (o *Options) resolve() (topics, error) {
	var ts topics
	var err error
	for _, x := range []struct {
		dst        *topic
		name       string
		persistent bool
	}{
		{&ts.coord, o.CoordinationTopic, false},
		{&ts.state, o.StateTopic, true},
		{&ts.reports, o.ReportsTopic, false},
		{&ts.packages, o.PackagesTopic, true},
	} {
		if *x.dst, err = o.topic(x.name); err != nil {
			return ts, err
		}
		if x.persistent && !strings.HasPrefix(x.dst.name, "persistent://") {
			return ts, fmt.Errorf("pulsarcluster: %s must be persistent to be compacted", x.dst.name)
		}
	}
	return ts, nil
}

func (o *Options) topic(name string) (topic, error) {
	if !strings.Contains(name, "://") {
		name = "persistent://" + o.Namespace + "/" + name
	}
	tn, err := utils.GetTopicName(name)
	if err != nil {
		return topic{}, fmt.Errorf("pulsarcluster: topic %q: %w", name, err)
	}
	return topic{name: tn.String(), tn: *tn}, nil
}

func (o *Options) clientOptions() pulsarclient.ClientOptions {
	co := pulsarclient.ClientOptions{
		URL:                        o.ServiceURL,
		OperationTimeout:           o.OperationTimeout,
		Logger:                     pulsarlog.NewLoggerWithSlog(o.Log.With("component", "pulsar-client")),
		TLSTrustCertsFilePath:      o.TLSTrustCertsFile,
		TLSAllowInsecureConnection: o.TLSAllowInsecureConnection,
	}
	switch {
	case o.Token != "":
		co.Authentication = pulsarclient.NewAuthenticationToken(o.Token)
	case o.TLSCertFile != "":
		co.Authentication = pulsarclient.NewAuthenticationTLS(o.TLSCertFile, o.TLSKeyFile)
	}
	return co
}

func (o *Options) adminConfig() *config.Config {
	return &config.Config{
		WebServiceURL:              o.AdminURL,
		Token:                      o.Token,
		TLSTrustCertsFilePath:      o.TLSTrustCertsFile,
		TLSAllowInsecureConnection: o.TLSAllowInsecureConnection,
		TLSCertFile:                o.TLSCertFile,
		TLSKeyFile:                 o.TLSKeyFile,
	}
}
