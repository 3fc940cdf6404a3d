// Command etcd is etcd's own server entry point, built from the go.etcd.io/etcd/server/v3 release that
// k8s.io/kubernetes requires, so the apiserver and its store come from one tested pair.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
