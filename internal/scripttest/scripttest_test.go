package scripttest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	text := "# a comment line\n\nconfig a=1 b=2   # trailing comment\nld 0x10 → hit\nrd 0x20 at=3 -> 101\n   \n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{Pos: path + ":3", Fields: []string{"config", "a=1", "b=2"}},
		{Pos: path + ":4", Fields: []string{"ld", "0x10"}, Want: "hit", Arrow: true},
		{Pos: path + ":5", Fields: []string{"rd", "0x20", "at=3"}, Want: "101", Arrow: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read:\n got %+v\nwant %+v", got, want)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "absent.txt")); err == nil {
		t.Error("a missing script read without error")
	}
}

func TestKeyValues(t *testing.T) {
	got, err := KeyValues([]string{"0x20", "at=3", "window=", "n=4"})
	if want := map[string]string{"at": "3", "window": "", "n": "4"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("KeyValues = %v, %v; want %v (the address left out)", got, err, want)
	}
	if _, err := KeyValues([]string{"at=3", "at=4"}); err == nil {
		t.Error("a key given twice accepted")
	}
}
