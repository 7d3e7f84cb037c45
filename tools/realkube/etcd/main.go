// etcd's own main package lives in go.etcd.io/etcd/v3, whose go.mod replaces
// its sibling modules with local folders; calling etcdmain from here builds
// the same server from the published modules instead.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
