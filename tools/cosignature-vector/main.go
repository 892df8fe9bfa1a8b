// Command cosignature-vector prints a C2SP tlog-cosignature v1 (Ed25519) test vector made with Go's standard
// library alone, written from the spec independently of rye's TypeScript: a witness key from a fixed seed, its
// verifier key, and its cosignature line over a fixed checkpoint at a fixed time. Ed25519 is deterministic, so
// packages/core/src/registry/cosignature.test.ts must reproduce the line byte for byte.
//
//	go run ./tools/cosignature-vector
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i + 1)
	}
	key := ed25519.NewKeyFromSeed(seed)
	pub := key.Public().(ed25519.PublicKey)
	name := "witness.example/w1"
	checkpoint := "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
	var timestamp uint64 = 1679315147

	h := sha256.Sum256(append(append([]byte(name+"\n"), 0x04), pub...))
	keyID := h[:4]
	vkey := fmt.Sprintf("%s+%s+%s", name, hex.EncodeToString(keyID), base64.StdEncoding.EncodeToString(append([]byte{0x04}, pub...)))
	msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s", timestamp, checkpoint)
	sig := ed25519.Sign(key, []byte(msg))
	blob := make([]byte, 0, 4+8+64)
	blob = append(blob, keyID...)
	blob = binary.BigEndian.AppendUint64(blob, timestamp)
	blob = append(blob, sig...)
	line := fmt.Sprintf("— %s %s\n", name, base64.StdEncoding.EncodeToString(blob))
	json.NewEncoder(os.Stdout).Encode(map[string]any{"seed_hex": hex.EncodeToString(seed), "name": name, "checkpoint": checkpoint, "timestamp": timestamp, "vkey": vkey, "line": line})
}
