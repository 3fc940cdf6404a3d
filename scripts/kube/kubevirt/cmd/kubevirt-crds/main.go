// Command kubevirt-crds prints the CustomResourceDefinitions that virt-operator installs, made by KubeVirt's
// own generator (pkg/virt-operator/resource/generate/components), as one JSON List on standard output.
// The tests apply them through the API, so the schemas are KubeVirt's and never written by hand.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"kubevirt.io/kubevirt/pkg/virt-operator/resource/generate/components"
)

// The same constructors virt-operator's install strategy lists, plus the KubeVirt CR's own definition.
var generators = []func() (*extv1.CustomResourceDefinition, error){
	components.NewKubeVirtCrd,
	components.NewVirtualMachineInstanceCrd, components.NewPresetCrd, components.NewReplicaSetCrd,
	components.NewVirtualMachineCrd, components.NewVirtualMachineInstanceMigrationCrd,
	components.NewVirtualMachineSnapshotCrd, components.NewVirtualMachineSnapshotContentCrd,
	components.NewVirtualMachineRestoreCrd, components.NewVirtualMachineInstancetypeCrd,
	components.NewVirtualMachineClusterInstancetypeCrd, components.NewVirtualMachinePoolCrd,
	components.NewMigrationPolicyCrd, components.NewVirtualMachinePreferenceCrd,
	components.NewVirtualMachineClusterPreferenceCrd, components.NewVirtualMachineExportCrd,
	components.NewVirtualMachineCloneCrd, components.NewVirtualMachineBackupCrd,
	components.NewVirtualMachineBackupTrackerCrd,
}

func main() {
	items := make([]*extv1.CustomResourceDefinition, 0, len(generators))
	for _, generate := range generators {
		crd, err := generate()
		if err != nil {
			fmt.Fprintf(os.Stderr, "kubevirt-crds: %v\n", err)
			os.Exit(1)
		}
		items = append(items, crd)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	if err := json.NewEncoder(os.Stdout).Encode(list); err != nil {
		fmt.Fprintf(os.Stderr, "kubevirt-crds: %v\n", err)
		os.Exit(1)
	}
}
