// Renders templates with Go's text/template on the original service's payload types, for the
// differential test (test/webhooks/template-differential.test.ts). Standard library only.
//
// stdin:  {"payloads": {"create": <payload JSON>, ...}, "cases": [{"event": "create", "template": "..."}]}
// stdout: one JSON line per case: {"ok": true, "out": <base64 of the raw bytes>} or {"ok": false, "error": "..."}
//
// Payloads are decoded with encoding/json into the original's types, as the original's delivery
// path did (so Changes' Old and New hold what JSON decoding gives: string or []interface {}).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"goreference/webhook"
)

type input struct {
	Payloads map[string]json.RawMessage `json:"payloads"`
	Cases    []struct {
		Event    string `json:"event"`
		Template string `json:"template"`
	} `json:"cases"`
}

type result struct {
	OK    bool   `json:"ok"`
	Out   []byte `json:"out,omitempty"`
	Error string `json:"error,omitempty"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, c := range in.Cases {
		var p webhook.Payload
		if err := json.Unmarshal(in.Payloads[c.Event], &p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out, err := render(c.Template, p)
		r := result{OK: err == nil, Out: out}
		if err != nil {
			r.Error = err.Error()
		}
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

func render(src string, p webhook.Payload) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return webhook.Execute(src, p)
}
