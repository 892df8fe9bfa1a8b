package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/mod/sumdb/tlog"
)

type hashes []tlog.Hash

func (h hashes) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = h[x]
	}
	return out, nil
}

func hx(h tlog.Hash) string { return hex.EncodeToString(h[:]) }

func build(n int) hashes {
	var st hashes
	for i := 0; i < n; i++ {
		hs, err := tlog.StoredHashes(int64(i), []byte(fmt.Sprintf("leaf %d", i)), st)
		if err != nil {
			panic(err)
		}
		st = append(st, hs...)
	}
	return st
}

func main() {
	st := build(70)
	out := map[string]interface{}{}
	roots := map[string]string{}
	for n := 1; n <= 70; n++ {
		h, _ := tlog.TreeHash(int64(n), st)
		roots[fmt.Sprint(n)] = hx(h)
	}
	out["roots"] = roots
	type inc struct {
		Index, Size int64
		Proof       []string
	}
	var incs []inc
	for _, p := range [][2]int64{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {5, 7}, {6, 7}, {0, 8}, {7, 8}, {13, 70}, {63, 64}, {64, 70}, {69, 70}, {31, 33}} {
		pr, err := tlog.ProveRecord(p[1], p[0], st)
		if err != nil {
			panic(err)
		}
		var s []string
		for _, h := range pr {
			s = append(s, hx(h))
		}
		incs = append(incs, inc{p[0], p[1], s})
	}
	out["inclusion"] = incs
	type cons struct {
		From, To int64
		Proof    []string
	}
	var cs []cons
	for _, p := range [][2]int64{{1, 2}, {1, 8}, {3, 7}, {4, 7}, {6, 8}, {2, 5}, {7, 70}, {32, 64}, {33, 70}, {64, 70}, {69, 70}} {
		pr, err := tlog.ProveTree(p[1], p[0], st)
		if err != nil {
			panic(err)
		}
		var s []string
		for _, h := range pr {
			s = append(s, hx(h))
		}
		cs = append(cs, cons{p[0], p[1], s})
	}
	out["consistency"] = cs
	big := build(66000)
	th, _ := tlog.TreeHash(66000, big)
	out["big_size"] = 66000
	out["big_root"] = hx(th)
	tiles := map[string]string{}
	for _, t := range []tlog.Tile{{H: 8, L: 0, N: 0, W: 256}, {H: 8, L: 0, N: 257, W: 208}, {H: 8, L: 1, N: 0, W: 256}, {H: 8, L: 1, N: 1, W: 1}, {H: 8, L: 0, N: 100, W: 256}} {
		data, err := tlog.ReadTileData(t, big)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(data)
		tiles[fmt.Sprintf("%d/%d/%d", t.L, t.N, t.W)] = hex.EncodeToString(sum[:])
	}
	out["big_tiles"] = tiles
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(out)
}
