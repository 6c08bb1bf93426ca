// Package webhook restates the original service's payload types (MoveToEx/longhub,
// backend/internal/webhook/payload.go) and its template set-up, so that templates render here as
// they did there. One change on purpose: CreatedAt is the interface's ISO 8601 string, where the
// original held a time.Time (docs/decisions.md §8).
package webhook

import (
	"bytes"
	"encoding/json"
	"text/template"

	"goreference/sqlc"
)

type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type ValueChange struct {
	Old any `json:"old"`
	New any `json:"new"`
}

type Changes map[string]ValueChange

type Data struct {
	ImageID   int64       `json:"imageID"`
	Text      string      `json:"text"`
	Rating    sqlc.Rating `json:"rating"`
	Tags      []string    `json:"tags"`
	ImageURL  string      `json:"imageURL"`
	CreatedAt string      `json:"createdAt"`
	Changes   *Changes    `json:"changes,omitempty"`
	Uploader  *User       `json:"uploader,omitempty"`
}

type Payload struct {
	Event     string `json:"event"`
	Data      Data   `json:"data"`
	Initiator *User  `json:"initiator,omitempty"`
}

// Embed Data so templates can use both .Data.Text and .Text.
type templateFields struct {
	Event string
	Data
	Initiator *User
}

// Execute renders a template as the original's Render does, without its limits and without the
// check that the result is JSON: the raw bytes of text/template.
func Execute(src string, p Payload) ([]byte, error) {
	tmpl, err := template.New("webhook").Funcs(template.FuncMap{
		"json": func(value any) (string, error) {
			data, err := json.Marshal(value)
			return string(data), err
		},
	}).Parse(src)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, templateFields{Event: p.Event, Data: p.Data, Initiator: p.Initiator}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
