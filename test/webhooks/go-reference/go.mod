module goreference

go 1.19
