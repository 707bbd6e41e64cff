// Package exceptions holds back findings that a person has accepted, and
// says so. An exception comes from the object itself (the annotation
// drvcheck.io/ignore, with drvcheck.io/ignore-reason and optionally
// drvcheck.io/ignore-expires) or from the exceptions: list of .drvcheck.yaml
// (rule, object, reason, optional expires).
//
// Annotations are read from the typed objects of the inventory (their
// ObjectMeta), for the object a finding names and then up its controller
// chain (ownerReferences), so that a Deployment's annotation also covers its
// ReplicaSets and Pods in a live cluster; objects of kinds only custom rules
// read are found among the objects as read, when the inventory kept them.
//
// A suppressed finding is kept, with its reason, so that every report
// counts it. An exception past its date stops suppressing: the finding's
// message says so, and the run lists every expired exception. Matching runs
// after the runner has placed the findings, so suppressed findings keep
// their file and line.
package exceptions
