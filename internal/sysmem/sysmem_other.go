//go:build !linux

package sysmem

// limits knows no source outside Linux.
func limits() []Limit { return nil }
