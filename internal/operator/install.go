package operator

import "fmt"

// fromInstalls is the profile the first GitOps object that installs the
// gpu-operator chart makes: its inline values as a values file's, named
// after the object, and the chart version it pins as the operator's
// release. A repository that installs the chart twice (one Application
// per cluster, say) is checked with the first, and the run says so.
func fromInstalls(installs []Install) (*Profile, error) {
	first := installs[0]
	// The values are the install's own copy (load.OperatorInstall); typing
	// them as the chart does is the same every time.
	p, err := fromValueMap(first.Values, first.From, first.From.String())
	if err != nil {
		return nil, err
	}
	p.chartVersion = first.Version
	for _, other := range installs[1:] {
		p.Notes = append(p.Notes, fmt.Sprintf("%s also installs the gpu-operator chart; the operator's configuration is read from %s alone (check one cluster's folder at a time)", other.From, first.From))
	}
	return p, nil
}
