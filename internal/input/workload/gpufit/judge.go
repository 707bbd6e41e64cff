package gpufit

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/gpures"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// Judge holds what the GPU judgements of one run share: workloads of the
// same constraints and requests share an answer, classes their nodes'
// offers, gangs the pods bound to each node.
type Judge struct {
	fleet      *sched.Fleet
	pods       []*corev1.Pod // the pods read, for the room bound ones take
	fits       map[fitKey]fit
	fitEntries map[fitKey]map[string]any // gpu_fit of pods that fit, shared
	offers     map[*sched.Class][]offerGroup
	nodeOffers map[*corev1.Node]gpures.Offer
	bound      map[string][]boundPod                    // by node, made on first use
	configs    *gpures.Configs                          // the device plugin's and MIG manager's; nil when not among the inputs
	extended   map[string]map[corev1.ResourceName]int64 // by node, what DRA gives as extended resources
	window     *Window                                  // the driver rollout's, for DRV029 and DRV032; nil for none
	rooms      []*Room                                  // the gangs that fit, for plan --all (Rooms)
	byName     map[*sched.Placement]map[string]classed  // admitted nodes by name, made when a Room asks
	roomWork   int                                      // what the Rooms packed so far (maxRoomWork)
	gangWork   int                                      // pods times slots of the gangs judged so far (maxGangRunWork)
}

// New is a judge of the workloads placed on fleet, pods being the pods
// read, configs the GPU Operator's configs among the inputs and extended
// what DRA gives each node as extended resources (by node name), window
// the driver rollout's (nil without an operator profile that rolls).
func New(fleet *sched.Fleet, pods []*corev1.Pod, configs *gpures.Configs, extended map[string]map[corev1.ResourceName]int64, window *Window) *Judge {
	return &Judge{
		window:     window,
		configs:    configs,
		extended:   extended,
		fleet:      fleet,
		pods:       pods,
		fits:       map[fitKey]fit{},
		fitEntries: map[fitKey]map[string]any{},
		offers:     map[*sched.Class][]offerGroup{},
		nodeOffers: map[*corev1.Node]gpures.Offer{},
	}
}
