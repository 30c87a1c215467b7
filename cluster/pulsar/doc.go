// Package pulsar is the cluster.Backend on a real Pulsar cluster, after the
// Java functions worker's scheme: membership and leadership from a failover
// subscription, a state written only through the leader's exclusive
// producer, compacted topics read from the earliest message. Users import
// it as pulsarcluster.
//
// # Topics and keys
//
// Four topics, named in Options (a bare name is inside Namespace,
// default public/functions); Open creates the missing ones.
//
//   - coordinate: a partitioned topic with ONE partition and no messages.
//     Every session subscribes to it with the failover subscription
//     "participants", consumer name "<workerId>:<host>:<port>" (so worker
//     ids must not contain ':'), consumer property "id" = the same string
//     and "workerInfo" = the WorkerInfo JSON, capacity included. One
//     partition, not a plain topic: on a partition Pulsar makes the consumer
//     with the smallest name active, while on a non-partitioned topic (4.x,
//     AbstractDispatcherSingleActiveConsumer) it picks one by a hash of the
//     topic name, so the leader could move whenever anyone joins. Hence the
//     leader is the present worker with the smallest consumer name (in
//     practice the smallest id), and a joining worker with a smaller id
//     takes leadership over.
//   - state (fworker-state): ONE compacted topic for all scheduling state,
//     written only by the leader. One topic, not the Java worker's two
//     (metadata and assignments): a single exclusive producer on a single
//     partition totally orders every write, so the feed delivers a batch in
//     Apply order and a worker sees a function before its instances (two
//     topics would let a follower see an assignment of a function it has not
//     seen yet); and there is one fencing point, not two. Keys:
//     "f/<tenant/ns/name>" Function, "a/<tenant/ns/name:index>" Assignment,
//     "d/<worker>" drain.Record, "c/<worker>" {"cordoned":true}, and "h"
//     {"gen","rev"}, the high-water mark of State.Gen and State.Rev, sent
//     as the last message of every batch. Values are JSON.
//   - reports (fworker-reports): worker observations, JSON
//     {"type":"InstanceStarted|InstanceStopped|InstanceFailed|WorkerReport","body":...}.
//   - packages (fworker-packages): compacted; see Packages below.
//
// # Removals
//
// A removal is first written as a marker: a JSON value ({"rev":N} for an
// assignment) with the message property removed=true. Compaction keeps a
// marker like any value, so a reader that lags behind a compaction still
// sees the removal; a plain tombstone (empty payload) would be dropped by
// compaction with its key and that reader would keep the key forever. The
// leader replaces markers older than Options.TombstoneDelay by real
// tombstones (empty payload, property tombstone=true; the property is
// needed because pulsar-client-go v0.19.0 discards a non-batched empty
// message without properties as corrupt). So a follower lagging less than
// TombstoneDelay never misses a removal; Follow maps both a marker and a
// tombstone to the removal effect (a tombstone with Rev 0).
//
// # Membership and leadership
//
// Membership is the consumers of "participants" in the admin topic stats
// (Topics().GetStats on partition 0), the leader is the consumer named by
// the subscription's activeConsumerName. Each session polls that every
// MembershipPollInterval and also right after the failover listener's
// BecameActive or BecameInactive. The listener runs on the client's
// connection goroutine: it only records the event and signals a channel of
// capacity 1. BecameInactive also ends this session's leadership at once,
// before the poll. View.Changed closes when the members or the leader
// change.
//
// Between a broker failover and the next poll: the broker moves the active
// consumer (after its activeConsumerFailoverDelayTimeMillis, 1 s by
// default) and tells both consumers. The new leader polls at once and
// leads within milliseconds of that notice; other members learn it at
// their next poll, so for up to MembershipPollInterval views disagree and
// two sessions may both believe they lead. That is safe because nothing is
// written on belief alone: the old leader still holds the exclusive
// producer until it sees that it no longer leads (BecameInactive, or its
// next poll), and the new one cannot write, nor Load as leader, before it
// gets that producer. If the old leader's process or link died, its
// connection and producer go with it (after the broker notices: at once
// for a closed socket, after the keep-alive timeout for a silent link), and
// a producer that reconnects after another took the topic is fenced.
//
// # Fencing and the state
//
// Store().Apply writes through an exclusive producer
// (ProducerAccessModeExclusive; never WaitForExclusive, which blocks with
// no timeout) created in the current leadership term and retried, with
// backoff and at once on a view change, while the session leads. It sends
// the batch asynchronously, flushes, and returns only when the broker has
// persisted every message. It returns cluster.ErrNotLeader when the
// session does not lead or its producer was fenced or closed; on any
// failure the producer is closed, so the next write starts from a fresh
// producer and a fresh read. Load by the leader first takes the producer,
// then reads: it reads everything the previous leader wrote, and nobody
// writes while it reads. Load reads the compacted view from the earliest
// message to the last message id; Follow does the same with a reader of
// its own, hands over the Reset, and keeps reading, one Update per record.
// The leader compacts the state and packages topics every
// CompactionInterval if they changed. Open compacts a topic that never was:
// the broker's __compaction cursor then keeps the data until compacted,
// which a topic without subscriptions and without retention would lose.
//
// # Reports
//
// Report sends on the reports topic from any session. While a session
// leads, it reads that topic from the latest message (the reader starts
// before its view says it leads) and delivers to Reports(), a buffered
// channel that drops when full. Reports sent while no one reads, or before
// the new leader's reader started, are lost: by contract the next
// WorkerReport repairs that.
//
// # Packages
//
// Not Pulsar's packages management API: it needs broker settings the test
// broker does not have. Not producer chunking either: every chunk of a
// chunked message carries the message key, so compaction keeps only the
// last chunk and the package is lost. A package is stored as chunk messages
// "c/<name>/<upload>/<i>" (512 KiB, batching off) followed by the manifest
// "m/<name>" {"upload","size","chunks","sha256"}, so a reader sees all of
// an upload or none. OpenPackage scans the whole compacted topic for the
// manifest and its chunks (fine for tests and small clusters; every open
// reads every package). DeletePackage tombstones the manifest and every
// chunk of the name. An upload that fails is tombstoned best effort.
//
// # Ownership and goroutines
//
// Backend owns the admin client and the topic names; every Session owns a
// Pulsar client, so sessions fail independently like separate processes.
// Per session:
//   - the loop goroutine owns polling, the view's leadership transitions
//     (session.lead) and the maintenance tick; mu guards the view, Changed
//     and the term, which every other goroutine reads;
//   - while leading: a goroutine reading reports, a short-lived one taking
//     the exclusive producer, and at each tick one doing maintenance
//     (purge, compaction; maintaining makes it one at a time);
//   - writer.mu serializes Apply, a leader's Load, the purge and the
//     producer's life; the writer's seeded state (gen, rev, markers) is
//     what the topic holds under that producer;
//   - each Follow runs on its caller's goroutine with its own reader;
//   - Close cancels the session context, closes the exclusive producer
//     first (the next leader gets it at its first try), then the
//     subscription, waits for the goroutines, then closes the client.
package pulsar
