package drvcheck.rules.drv009_test

import data.drvcheck.rules.drv009

digest := "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

# NVIDIA's nvd-precompiled-all.yaml (cloud-native-docs manifests/input) with
# its version pinned to a digest.
nvd := {"owner": "NVIDIADriver/demo-precomp-all", "object": {"kind": "NVIDIADriver", "namespace": "", "name": "demo-precomp-all"}, "version": digest,
	"refused": "the operator refuses it (\"specifying image digest is not supported when precompiled is enabled\"): its nodes get no driver"}

findings(d) := fs if {
	fs := drv009.findings with input as {"operator": {"drivers": [d]}}
}

test_precompiled_digest if {
	fs := findings(nvd)
	count(fs) == 1
	some f in fs
	f.message == sprintf("NVIDIADriver/demo-precomp-all is precompiled with the digest %s as version: the operator refuses it (\"specifying image digest is not supported when precompiled is enabled\"): its nodes get no driver", [digest])
	f.field == "/spec/version"
}

test_no_refusal if {
	count(findings(object.union(nvd, {"refused": ""}))) == 0
	count(findings({"owner": "ClusterPolicy/p", "object": {"kind": "ClusterPolicy", "namespace": "", "name": "p"}, "version": "580"})) == 0
}
