// Package sqlc holds the one type of the original's generated package that the payload uses.
package sqlc

// Rating is the original's enum type (a string). Its only method, Scan, has a pointer receiver
// and is unreachable from templates (payload fields are never addressable), so it is left out.
type Rating string
