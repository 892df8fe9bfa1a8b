// Command tlog-verify checks a rye registry's transparency log with Go's own implementation of signed notes and
// Merkle tile logs (golang.org/x/mod/sumdb/note and golang.org/x/mod/sumdb/tlog), independently of rye's code.
//
// It opens the registry's checkpoint (GET <registry>/v1/tlog/checkpoint) with the given verifier key, reads the tree
// through tlog.TileHashReader (every tile is checked against the signed root), reads every entry from the entry
// bundles and checks that each one hashes to its leaf, checks the registry's inclusion proof of one entry, and, given
// an older checkpoint, checks that the new tree extends it (with a proof built from the tiles and with the registry's
// own consistency proof). It exits 0 when every check passes and 1, naming the first failure, when one does not.
//
// Build (offline, GOPATH mode): GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= go build -o tlog-verify ./tools/tlog-verify
//
// Usage: tlog-verify -registry URL -key VERIFIER_KEY [-index N] [-old FILE] [-save FILE]
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const tileHeight = 8

// maxBody bounds every answer read from the registry (a full entry bundle is at most 256 × (2 + 65535) bytes).
const maxBody = 256*(2+65535) + 1

type checkpoint struct {
	origin string
	tree   tlog.Tree
	note   []byte
}

type client struct {
	prefix string
	http   *http.Client
}

func (c *client) get(path string) ([]byte, error) {
	resp, err := c.http.Get(c.prefix + "/" + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// openCheckpoint verifies a signed-note checkpoint and parses its body: origin, tree size, base64 root hash.
func openCheckpoint(msg []byte, verifiers note.Verifiers, origin string) (*checkpoint, error) {
	n, err := note.Open(msg, verifiers)
	if err != nil {
		return nil, fmt.Errorf("checkpoint signature: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return nil, errors.New("checkpoint: not origin, size and root hash lines")
	}
	if lines[0] != origin {
		return nil, fmt.Errorf("checkpoint: origin %q, expected %q", lines[0], origin)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return nil, fmt.Errorf("checkpoint: bad tree size %q", lines[1])
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return nil, fmt.Errorf("checkpoint: bad root hash %q", lines[2])
	}
	var h tlog.Hash
	copy(h[:], root)
	return &checkpoint{origin: lines[0], tree: tlog.Tree{N: size, Hash: h}, note: msg}, nil
}

// tileReader fetches C2SP tiles: tile/<L>/<N>[.p/<W>] (Go's own paths carry the height, tile/8/<L>/…).
type tileReader struct{ c *client }

func (r tileReader) Height() int { return tileHeight }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := r.c.get(c2spTilePath(t))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (r tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

func c2spTilePath(t tlog.Tile) string {
	return strings.Replace(t.Path(), fmt.Sprintf("tile/%d/", tileHeight), "tile/", 1)
}

// entries reads the entry bundle of tile index n with width w: big-endian uint16 lengths, each followed by an entry.
func (c *client) entries(n int64, w int) ([][]byte, error) {
	t := tlog.Tile{H: tileHeight, L: 0, N: n, W: w}
	data, err := c.get(strings.Replace(c2spTilePath(t), "tile/0/", "tile/entries/", 1))
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, fmt.Errorf("entry bundle %d: truncated length", n)
		}
		size := int(binary.BigEndian.Uint16(data))
		if len(data) < 2+size {
			return nil, fmt.Errorf("entry bundle %d: truncated entry", n)
		}
		out = append(out, data[2:2+size])
		data = data[2+size:]
	}
	if len(out) != w {
		return nil, fmt.Errorf("entry bundle %d: %d entries, expected %d", n, len(out), w)
	}
	return out, nil
}

func decodeHashes(list []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(list))
	for i, s := range list {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("bad hash %q", s)
		}
		copy(out[i][:], b)
	}
	return out, nil
}

type result struct {
	Origin          string `json:"origin"`
	TreeSize        int64  `json:"tree_size"`
	RootHash        string `json:"root_hash"`
	EntriesChecked  int64  `json:"entries_checked"`
	InclusionIndex  int64  `json:"inclusion_index"`
	ConsistencyFrom *int64 `json:"consistency_from,omitempty"`
}

func run() (*result, error) {
	registry := flag.String("registry", "", "the registry's URL")
	key := flag.String("key", "", "the log's signed-note verifier key (<name>+<hex id>+<base64 key>)")
	index := flag.Int64("index", -1, "the entry whose inclusion proof to check (default: the last)")
	oldPath := flag.String("old", "", "an older checkpoint (a file) the new one must extend")
	savePath := flag.String("save", "", "write the verified checkpoint to this file")
	flag.Parse()
	if *registry == "" || *key == "" {
		return nil, errors.New("usage: tlog-verify -registry URL -key VERIFIER_KEY [-index N] [-old FILE] [-save FILE]")
	}
	verifier, err := note.NewVerifier(*key)
	if err != nil {
		return nil, fmt.Errorf("verifier key: %v", err)
	}
	verifiers := note.VerifierList(verifier)
	u, err := url.Parse(strings.TrimRight(*registry, "/"))
	if err != nil {
		return nil, err
	}
	// The key's name is the log's origin: the checkpoint must name it (whatever URL reaches the registry).
	origin := verifier.Name()
	c := &client{prefix: u.String() + "/v1/tlog", http: &http.Client{Timeout: 30 * time.Second}}

	msg, err := c.get("checkpoint")
	if err != nil {
		return nil, err
	}
	cp, err := openCheckpoint(msg, verifiers, origin)
	if err != nil {
		return nil, err
	}
	tree := cp.tree
	reader := tlog.TileHashReader(tree, tileReader{c})
	res := &result{Origin: origin, TreeSize: tree.N, RootHash: base64.StdEncoding.EncodeToString(tree.Hash[:])}

	// Every entry: its bytes from the entry bundles hash to the leaf the tiles (checked against the root) hold.
	for start := int64(0); start < tree.N; start += 1 << tileHeight {
		w := int(tree.N - start)
		if w > 1<<tileHeight {
			w = 1 << tileHeight
		}
		datas, err := c.entries(start>>tileHeight, w)
		if err != nil {
			return nil, err
		}
		indexes := make([]int64, w)
		for i := range indexes {
			indexes[i] = tlog.StoredHashIndex(0, start+int64(i))
		}
		leaves, err := reader.ReadHashes(indexes)
		if err != nil {
			return nil, fmt.Errorf("tiles: %v", err)
		}
		for i, data := range datas {
			n := start + int64(i)
			if tlog.RecordHash(data) != leaves[i] {
				return nil, fmt.Errorf("entry %d: its bytes do not hash to the leaf the signed tree holds", n)
			}
			var entry struct {
				Index *int64 `json:"index"`
			}
			if err := json.Unmarshal(data, &entry); err != nil || entry.Index == nil || *entry.Index != n {
				return nil, fmt.Errorf("entry %d: does not name its own index", n)
			}
		}
		res.EntriesChecked += int64(w)
	}

	// One entry's inclusion proof, as the registry serves it, against the signed root; and the same proof built from tiles.
	if tree.N > 0 {
		i := *index
		if i < 0 {
			i = tree.N - 1
		}
		if i >= tree.N {
			return nil, fmt.Errorf("entry %d is not in the tree of size %d", i, tree.N)
		}
		body, err := c.get(fmt.Sprintf("proof/inclusion?index=%d&tree_size=%d", i, tree.N))
		if err != nil {
			return nil, err
		}
		var answer struct {
			Leaf  string   `json:"leaf"`
			Proof []string `json:"proof"`
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			return nil, fmt.Errorf("inclusion proof: %v", err)
		}
		leaf, err := base64.StdEncoding.DecodeString(answer.Leaf)
		if err != nil {
			return nil, fmt.Errorf("inclusion proof: bad leaf")
		}
		proof, err := decodeHashes(answer.Proof)
		if err != nil {
			return nil, fmt.Errorf("inclusion proof: %v", err)
		}
		if err := tlog.CheckRecord(tlog.RecordProof(proof), tree.N, tree.Hash, i, tlog.RecordHash(leaf)); err != nil {
			return nil, fmt.Errorf("inclusion proof of entry %d: %v", i, err)
		}
		own, err := tlog.ProveRecord(tree.N, i, reader)
		if err != nil {
			return nil, fmt.Errorf("inclusion proof from tiles: %v", err)
		}
		if err := tlog.CheckRecord(own, tree.N, tree.Hash, i, tlog.RecordHash(leaf)); err != nil {
			return nil, fmt.Errorf("inclusion proof of entry %d from tiles: %v", i, err)
		}
		res.InclusionIndex = i
	}

	// The new tree extends the older checkpoint.
	if *oldPath != "" {
		oldMsg, err := os.ReadFile(*oldPath)
		if err != nil {
			return nil, err
		}
		old, err := openCheckpoint(oldMsg, verifiers, origin)
		if err != nil {
			return nil, fmt.Errorf("older %v", err)
		}
		if old.tree.N > tree.N {
			return nil, fmt.Errorf("the log shrank: %d entries, an older checkpoint had %d", tree.N, old.tree.N)
		}
		own, err := tlog.ProveTree(tree.N, old.tree.N, reader)
		if err != nil {
			return nil, fmt.Errorf("consistency proof from tiles: %v", err)
		}
		if err := tlog.CheckTree(own, tree.N, tree.Hash, old.tree.N, old.tree.Hash); err != nil {
			return nil, fmt.Errorf("consistency from %d to %d (tiles): %v", old.tree.N, tree.N, err)
		}
		body, err := c.get(fmt.Sprintf("proof/consistency?from=%d&to=%d", old.tree.N, tree.N))
		if err != nil {
			return nil, err
		}
		var answer struct {
			Proof []string `json:"proof"`
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			return nil, fmt.Errorf("consistency proof: %v", err)
		}
		proof, err := decodeHashes(answer.Proof)
		if err != nil {
			return nil, fmt.Errorf("consistency proof: %v", err)
		}
		if err := tlog.CheckTree(tlog.TreeProof(proof), tree.N, tree.Hash, old.tree.N, old.tree.Hash); err != nil {
			return nil, fmt.Errorf("consistency from %d to %d (registry's proof): %v", old.tree.N, tree.N, err)
		}
		from := old.tree.N
		res.ConsistencyFrom = &from
	}

	if *savePath != "" {
		if err := os.WriteFile(*savePath, cp.note, 0o644); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func main() {
	res, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlog-verify: FAIL:", err)
		os.Exit(1)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	_ = enc.Encode(map[string]interface{}{"ok": true, "verified": res})
	os.Stdout.Write(out.Bytes())
}
