package pulsar

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	pulsarclient "github.com/apache/pulsar-client-go/pulsar"

	"github.com/fworker/fworker/cluster"
)

// chunkSize is the payload of one package chunk message: well under the
// broker's default maxMessageSize (5 MB).
const chunkSize = 512 << 10

// manifest is the value of "m/<name>": which upload holds the package.
type manifest struct {
	Upload string `json:"upload"` // random id of the upload
	Size   int64  `json:"size"`
	Chunks int    `json:"chunks"`
	SHA256 string `json:"sha256"`
}

func manifestKey(name string) string { return "m/" + name }

func chunkPrefix(name string) string { return "c/" + name + "/" }

func chunkKey(name, upload string, i int) string {
	return chunkPrefix(name) + upload + "/" + strconv.Itoa(i)
}

func (s *session) packageProducer() (pulsarclient.Producer, error) {
	return s.producer(&s.packager, pulsarclient.ProducerOptions{
		Topic:           s.b.topics.packages.name,
		DisableBatching: true,
	})
}

// PutPackage stores the chunks of an upload, then its manifest: a reader
// sees the whole package or none of it.
func (s *session) PutPackage(ctx context.Context, name string, r io.Reader, limit int64) (int64, error) {
	if name == "" {
		return 0, errors.New("pulsarcluster: empty package name")
	}
	p, err := s.packageProducer()
	if err != nil {
		return 0, err
	}
	ctx, cancel := s.merge(ctx)
	defer cancel()
	var id [8]byte
	rand.Read(id[:])
	upload := hex.EncodeToString(id[:])
	sum := sha256.New()
	in := io.LimitReader(r, limit+1)
	sent := &sendGroup{}
	var size int64
	var keys []string
	for i := 0; ; i++ {
		buf := make([]byte, chunkSize)
		n, rerr := io.ReadFull(in, buf)
		size += int64(n)
		if size > limit {
			err = fmt.Errorf("pulsarcluster: package %s is larger than %d bytes", name, limit)
		} else if n > 0 {
			sum.Write(buf[:n])
			key := chunkKey(name, upload, i)
			keys = append(keys, key)
			sent.send(ctx, p, &pulsarclient.ProducerMessage{Key: key, Payload: buf[:n]})
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF || err != nil {
			break
		}
		if rerr != nil {
			err = fmt.Errorf("pulsarcluster: reading package %s: %w", name, rerr)
			break
		}
	}
	if werr := sent.wait(ctx); err == nil {
		err = werr
	}
	if err == nil {
		m, _ := json.Marshal(manifest{Upload: upload, Size: size, Chunks: len(keys), SHA256: hex.EncodeToString(sum.Sum(nil))})
		if _, serr := p.Send(ctx, &pulsarclient.ProducerMessage{Key: manifestKey(name), Payload: m}); serr != nil {
			err = fmt.Errorf("pulsarcluster: package %s: %w", name, serr)
		}
	}
	if err != nil {
		s.discard(p, keys) // best effort: an upload without manifest is never read
		return 0, s.closedOr(err)
	}
	return size, nil
}

// OpenPackage scans the packages topic for the latest manifest of name and
// the chunks of its upload.
func (s *session) OpenPackage(ctx context.Context, name string) (io.ReadCloser, error) {
	ctx, cancel := s.merge(ctx)
	defer cancel()
	found, err := s.scanPackage(ctx, name)
	if err != nil {
		return nil, s.closedOr(err)
	}
	m := found.manifest
	if m == nil {
		return nil, cluster.ErrNoPackage
	}
	chunks := found.chunks[m.Upload]
	var data bytes.Buffer
	data.Grow(int(m.Size))
	for i := range m.Chunks {
		c, ok := chunks[i]
		if !ok {
			return nil, fmt.Errorf("pulsarcluster: package %s: chunk %d of upload %s is missing", name, i, m.Upload)
		}
		data.Write(c)
	}
	sum := sha256.Sum256(data.Bytes())
	if int64(data.Len()) != m.Size || hex.EncodeToString(sum[:]) != m.SHA256 {
		return nil, fmt.Errorf("pulsarcluster: package %s: upload %s does not match its manifest", name, m.Upload)
	}
	return io.NopCloser(&data), nil
}

// DeletePackage tombstones the manifest, then every chunk of name.
func (s *session) DeletePackage(ctx context.Context, name string) error {
	ctx, cancel := s.merge(ctx)
	defer cancel()
	found, err := s.scanPackage(ctx, name)
	if err != nil {
		return s.closedOr(err)
	}
	if found.manifest == nil && len(found.chunks) == 0 {
		return nil
	}
	p, err := s.packageProducer()
	if err != nil {
		return err
	}
	keys := []string{manifestKey(name)}
	for upload, chunks := range found.chunks {
		for i := range chunks {
			keys = append(keys, chunkKey(name, upload, i))
		}
	}
	sent := &sendGroup{}
	for _, k := range keys {
		sent.send(ctx, p, tombstone(k))
	}
	sent.send(ctx, p, endMarker())
	if err := sent.wait(ctx); err != nil {
		return s.closedOr(fmt.Errorf("pulsarcluster: delete package %s: %w", name, err))
	}
	return nil
}

type scanned struct {
	manifest *manifest
	chunks   map[string]map[int][]byte // upload -> index -> payload
}

// scanPackage reads the compacted packages topic to its end and keeps what
// belongs to name.
func (s *session) scanPackage(ctx context.Context, name string) (scanned, error) {
	out := scanned{chunks: map[string]map[int][]byte{}}
	r, err := s.compactedReader(s.b.topics.packages)
	if err != nil {
		return out, err
	}
	defer r.Close()
	mkey, prefix := manifestKey(name), chunkPrefix(name)
	err = readToEnd(ctx, r, func(msg pulsarclient.Message) error {
		k := msg.Key()
		switch {
		case k == mkey:
			out.manifest = nil
			if len(msg.Payload()) > 0 {
				var m manifest
				if err := json.Unmarshal(msg.Payload(), &m); err != nil {
					return fmt.Errorf("pulsarcluster: manifest of %s: %w", name, err)
				}
				out.manifest = &m
			}
		case strings.HasPrefix(k, prefix):
			upload, idx, ok := strings.Cut(k[len(prefix):], "/")
			i, err := strconv.Atoi(idx)
			if !ok || err != nil || strings.Contains(idx, "/") {
				return nil // another name's chunk: name + "/..."
			}
			if len(msg.Payload()) == 0 {
				delete(out.chunks[upload], i)
				return nil
			}
			if out.chunks[upload] == nil {
				out.chunks[upload] = map[int][]byte{}
			}
			out.chunks[upload][i] = msg.Payload()
		}
		return nil
	})
	return out, err
}

// discard deletes keys, best effort, after a failed upload.
func (s *session) discard(p pulsarclient.Producer, keys []string) {
	if len(keys) == 0 || s.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	g := &sendGroup{}
	for _, k := range keys {
		g.send(ctx, p, tombstone(k))
	}
	g.send(ctx, p, endMarker())
	if err := g.wait(ctx); err != nil {
		s.log.Warn("pulsarcluster: cleaning up a failed upload", "err", err)
	}
}

// tombstone is an empty message, which compaction drops with its key.
func tombstone(key string) *pulsarclient.ProducerMessage {
	return &pulsarclient.ProducerMessage{Key: key, Properties: map[string]string{propTombstone: "true"}}
}

// endMarker follows tombstones so that the last message of the topic is
// never one that compaction removes: a reader would wait for it in vain.
func endMarker() *pulsarclient.ProducerMessage {
	return &pulsarclient.ProducerMessage{Key: "~end", Payload: []byte(time.Now().UTC().Format(time.RFC3339Nano))}
}

// sendGroup sends asynchronously and keeps the first error.
type sendGroup struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func (g *sendGroup) send(ctx context.Context, p pulsarclient.Producer, m *pulsarclient.ProducerMessage) {
	g.wg.Add(1)
	p.SendAsync(ctx, m, func(_ pulsarclient.MessageID, _ *pulsarclient.ProducerMessage, err error) {
		if err != nil {
			g.mu.Lock()
			if g.err == nil {
				g.err = err
			}
			g.mu.Unlock()
		}
		g.wg.Done()
	})
}

// wait waits for every callback, or for ctx.
func (g *sendGroup) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
