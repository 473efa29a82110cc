module github.com/gtrace/gtrace

go 1.26.8
