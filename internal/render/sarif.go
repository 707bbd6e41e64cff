package render

import (
	"github.com/drvcheck/drvcheck/internal/baseline"

	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/policy"
)

// SARIF 2.1.0 (OASIS), the format GitHub code scanning reads.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	srcRoot      = "%SRCROOT%"
	toolURI      = "https://github.com/drvcheck/drvcheck"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	Name                 string      `json:"name,omitempty"`
	ShortDescription     sarifText   `json:"shortDescription"`
	FullDescription      *sarifText  `json:"fullDescription,omitempty"`
	Help                 *sarifText  `json:"help,omitempty"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
	Properties           sarifProps  `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifProps struct {
	Tags []string `json:"tags"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	// BaselineState is "new" or "unchanged" against --baseline (SARIF
	// 3.27.24); absent without one.
	BaselineState string            `json:"baselineState,omitempty"`
	Properties    map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

// SARIF prints one run of tool drvcheck: every rule with its title, help and
// default level, and one result per finding located at its file (relative
// to the repository root, %SRCROOT%) and line. Suppressed findings are
// results too, marked with a suppression and its reason, as SARIF intends.
// A run without findings is still a complete log with an empty results list.
func SARIF(w io.Writer, r Report, opt Options) error {
	rules, index := sarifRules(r)
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "drvcheck", InformationURI: toolURI, Version: opt.Version, Rules: rules}},
		Results:    []sarifResult{},
		ColumnKind: "utf16CodeUnits",
	}
	if opt.Root != "" {
		// A base URI must end with a slash (SARIF 3.14.14).
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: strings.TrimSuffix(absURI(opt.Root), "/") + "/"}}
	}
	for _, f := range r.Findings {
		run.Results = append(run.Results, sarifResultOf(f, index, opt))
	}
	for _, s := range r.Suppressed {
		res := sarifResultOf(s.Finding, index, opt)
		res.Suppressions = []sarifSuppression{suppressionOf(s)}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // help texts hold <driver-branch>; SARIF is not HTML
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifBaseline words a finding's state against --baseline as SARIF does.
var sarifBaseline = map[string]string{baseline.New: "new", baseline.Existing: "unchanged"}

// sarifRules lists the rules' metadata, adding a bare entry for any rule
// that produced findings without a meta (a custom rule), so that every
// result's ruleIndex points at its rule.
func sarifRules(r Report) ([]sarifRule, map[string]int) {
	out := []sarifRule{}
	index := map[string]int{}
	add := func(rule policy.Rule) {
		if _, seen := index[rule.ID]; seen {
			return
		}
		sr := sarifRule{
			ID:                   rule.ID,
			Name:                 rule.Title,
			ShortDescription:     sarifText{Text: cmp.Or(rule.Title, rule.ID)},
			DefaultConfiguration: sarifConfig{Level: sarifLevels.of(rule.Severity)},
			Properties:           sarifProps{Tags: []string{"drvcheck", "kubernetes", "gpu"}},
		}
		if rule.Help != "" {
			sr.FullDescription, sr.Help = &sarifText{Text: rule.Help}, &sarifText{Text: rule.Help}
		}
		index[rule.ID] = len(out)
		out = append(out, sr)
	}
	for _, rule := range r.Rules {
		add(rule)
	}
	for _, f := range allFindings(r) {
		add(policy.Rule{ID: f.Rule, Title: f.Title, Severity: f.Severity})
	}
	return out, index
}

func sarifResultOf(f policy.Finding, index map[string]int, opt Options) sarifResult {
	res := sarifResult{
		RuleID:              f.Rule,
		RuleIndex:           index[f.Rule],
		Level:               sarifLevels.of(f.Severity),
		Message:             sarifText{Text: where(f) + ": " + f.Message},
		PartialFingerprints: map[string]string{"drvcheckFinding/v1": fingerprint(f)},
		BaselineState:       sarifBaseline[f.Baseline],
	}
	loc := sarifLocation{LogicalLocations: []sarifLogical{{
		Name: f.Object.Name, FullyQualifiedName: f.Object.String(), Kind: "resource",
	}}}
	if f.File != "" && f.File != "-" {
		uri, relative := opt.fileURI(f.File)
		art := sarifArtifactLoc{URI: uri}
		if relative {
			art.URIBaseID = srcRoot
		}
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: art, Region: &sarifRegion{StartLine: max(f.Line, 1)}}
	}
	res.Locations = []sarifLocation{loc}
	props := map[string]string{}
	if f.Node != "" {
		props["node"] = f.Node
	}
	if f.Tag != "" {
		props["tag"] = f.Tag
	}
	if len(props) > 0 {
		res.Properties = props
	}
	return res
}

func suppressionOf(s exceptions.Suppressed) sarifSuppression {
	kind := "external" // the config file
	if s.Source == exceptions.SourceAnnotation {
		kind = "inSource"
	}
	return sarifSuppression{Kind: kind, Status: "accepted", Justification: s.Reason}
}

// fingerprint identifies a finding across runs whatever line it moves to,
// so code scanning tracks one alert rather than opening a new one.
// A fleet's finding counts its cluster too; one cluster's keeps the
// fingerprint it always had.
func fingerprint(f policy.Finding) string {
	parts := []string{f.Rule, f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Node, f.Tag, fmt.Sprint(f.Field...)}
	if f.Cluster != "" {
		parts = append(parts, f.Cluster)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// allFindings lists reported and suppressed findings together.
func allFindings(r Report) []policy.Finding {
	out := make([]policy.Finding, 0, len(r.Findings)+len(r.Suppressed))
	out = append(out, r.Findings...)
	for _, s := range r.Suppressed {
		out = append(out, s.Finding)
	}
	return out
}

// sarifLevels are SARIF's levels by severity.
var sarifLevels = levels{error: "error", warning: "warning", other: "note"}
