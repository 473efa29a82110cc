package accelsim

// ImportFS is importFixture for the external tests (roundtrip_test.go).
var ImportFS = importFixture
