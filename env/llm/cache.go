package llm

// The response cache: every answer a server gave, keyed by what determines
// it, so that a resumed or re-run collection pays for no call twice.
//
// The store is bbolt (go.etcd.io/bbolt, the B+tree etcd keeps its state
// in): pure Go, one file, copy-on-write pages with a meta page switched
// last, so a kill at any point leaves the last committed transaction
// whole, and one writer at a time inside one process (Batch gathers the
// concurrent writers' puts into one fsync). It needs no server, no cgo
// and no schema: a pure-Go SQLite would bring SQL and a far larger
// dependency for one key→value table.

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// cacheBucket holds the responses: key the SHA-256 of the request body
// (model, messages, sampling parameters, seed: wireRequest), value
// cachedResponse as JSON.
var cacheBucket = []byte("responses/v1")

// Cache is a response cache file, or several: one opened to write
// (OpenCache) and any number of others only read (AddReadOnly), looked up
// in that order. It is safe for concurrent use.
type Cache struct {
	path string
	db   *bolt.DB
	ro   []*bolt.DB
	hits atomic.Int64
	puts atomic.Int64
}

// cachedResponse is what a Response keeps in the cache: its content, not
// the attempts it took.
type cachedResponse struct {
	Content      string `json:"content"`
	Null         bool   `json:"null,omitempty"`
	Reasoning    string `json:"reasoning,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Model        string `json:"model,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	Completion   int    `json:"completion_tokens,omitempty"`
	UsageKnown   bool   `json:"usage_known,omitempty"`
}

// CachePath is the response cache of a collection writing to out when
// none is named: FILE.cache beside it (where data merge's callers find the
// shards' caches to join).
func CachePath(out string) string { return out + ".cache" }

// cacheOpenTimeout bounds the wait for a cache another process holds.
const cacheOpenTimeout = time.Second

// ErrCacheBusy: the cache file is open for writing in another process.
var ErrCacheBusy = errors.New("open for writing in another process")

// OpenCache opens the cache at path for reading and writing, creating it.
// Another process holding it for writing is an error (ErrCacheBusy): give
// each concurrent collection its own, and share others read-only.
func OpenCache(path string) (*Cache, error) {
	db, err := openBolt(path, false)
	if err != nil {
		return nil, err
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(cacheBucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("llm: cache %s: %w", path, err)
	}
	return &Cache{path: path, db: db}, nil
}

func openBolt(path string, readOnly bool) (*bolt.DB, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("llm: cache %s is not a regular file (a symbolic link?): refusing it", path)
	}
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: cacheOpenTimeout, ReadOnly: readOnly})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("llm: cache %s: %w", path, ErrCacheBusy)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: cache %s: %w", path, err)
	}
	return db, nil
}

// AddReadOnly opens the cache at path for reading only, looked up after
// the ones before it: another shard's cache, say, shared by many readers.
func (c *Cache) AddReadOnly(path string) error {
	db, err := openBolt(path, true)
	if err != nil {
		return err
	}
	c.ro = append(c.ro, db)
	return nil
}

// Close closes every file of the cache.
func (c *Cache) Close() error {
	errs := []error{c.db.Close()}
	for _, db := range c.ro {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// cacheKey is the key of a request body.
func cacheKey(body []byte) []byte {
	k := sha256.Sum256(body)
	return k[:]
}

// get looks the request body up, in the writable file then the read-only
// ones.
func (c *Cache) get(body []byte) (Response, bool) {
	key := cacheKey(body)
	for _, db := range append([]*bolt.DB{c.db}, c.ro...) {
		var v []byte
		db.View(func(tx *bolt.Tx) error {
			if b := tx.Bucket(cacheBucket); b != nil {
				if got := b.Get(key); got != nil {
					v = append([]byte(nil), got...)
				}
			}
			return nil
		})
		if v == nil {
			continue
		}
		var cr cachedResponse
		if json.Unmarshal(v, &cr) != nil {
			continue // not one this package wrote: ask the server
		}
		c.hits.Add(1)
		return Response{Content: cr.Content, Null: cr.Null, Reasoning: cr.Reasoning, FinishReason: cr.FinishReason, Model: cr.Model,
			Usage: Usage{PromptTokens: cr.PromptTokens, CompletionTokens: cr.Completion, Known: cr.UsageKnown}}, true
	}
	return Response{}, false
}

// put stores the answer to the request body, durably before it returns
// (concurrent puts share one commit).
func (c *Cache) put(body []byte, r Response) error {
	v, err := json.Marshal(cachedResponse{Content: r.Content, Null: r.Null, Reasoning: r.Reasoning, FinishReason: r.FinishReason,
		Model: r.Model, PromptTokens: r.Usage.PromptTokens, Completion: r.Usage.CompletionTokens, UsageKnown: r.Usage.Known})
	if err != nil {
		return err
	}
	key := cacheKey(body)
	err = c.db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(cacheBucket).Put(key, v) })
	if err != nil {
		return fmt.Errorf("llm: cache %s: %w", c.path, err)
	}
	c.puts.Add(1)
	return nil
}

// CacheStats is a cache's size and use.
type CacheStats struct {
	Path      string `json:"path"`
	Responses int    `json:"responses"` // in the writable file
	Bytes     int64  `json:"bytes"`     // its size on disk
	Hits      int64  `json:"hits"`      // answers taken from the cache (any of its files)
	Added     int64  `json:"added"`     // answers stored since it was opened
	ReadOnly  int    `json:"read_only_files,omitempty"`
}

// Stats reports the cache's size and use.
func (c *Cache) Stats() CacheStats {
	s := CacheStats{Path: c.path, Hits: c.hits.Load(), Added: c.puts.Load(), ReadOnly: len(c.ro)}
	c.db.View(func(tx *bolt.Tx) error {
		s.Responses = tx.Bucket(cacheBucket).Stats().KeyN
		s.Bytes = tx.Size()
		return nil
	})
	return s
}

// MergeCaches adds every response of the caches srcs (opened read-only)
// to the cache at dst, creating it: the caches of several shards become
// one. A key already in dst keeps its answer. It returns the responses
// added.
func MergeCaches(dst string, srcs []string) (int, error) {
	c, err := OpenCache(dst)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	added := 0
	for _, src := range srcs {
		db, err := openBolt(src, true)
		if err != nil {
			return added, err
		}
		err = db.View(func(stx *bolt.Tx) error {
			sb := stx.Bucket(cacheBucket)
			if sb == nil {
				return fmt.Errorf("llm: cache %s: not a response cache", src)
			}
			return c.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(cacheBucket)
				return sb.ForEach(func(k, v []byte) error {
					if b.Get(k) != nil {
						return nil
					}
					added++
					return b.Put(k, v)
				})
			})
		})
		db.Close()
		if err != nil {
			return added, err
		}
	}
	return added, nil
}
