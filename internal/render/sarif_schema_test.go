package render

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
)

// A structural validator for the part of SARIF 2.1.0 drvcheck writes,
// written from the OASIS schema (sarif-schema-2.1.0.json): for every object
// kind, its allowed properties (the schema sets additionalProperties: false
// everywhere but property bags), its required ones, and each property's
// type, enum, minimum, uniqueness and URI format. A property drvcheck does
// not write is reported too, so that the validated subset stays complete.

type check func(path string, v any) []string

type shape struct {
	required []string
	anyOf    [][]string // at least one of these groups must be fully present
	props    map[string]check
	open     bool // additional properties allowed (property bags)
}

var sarifShapes map[string]shape

func init() {
	level := enum("none", "note", "warning", "error")
	sarifShapes = map[string]shape{
		"log": {required: []string{"version", "runs"}, props: map[string]check{
			"$schema": uri(true), "version": enum("2.1.0"), "runs": array(anObject("run"), false),
		}},
		"run": {required: []string{"tool"}, props: map[string]check{
			"tool": anObject("tool"), "results": array(anObject("result"), false),
			"originalUriBaseIds": mapOf(anObject("artifactLocation")),
			"columnKind":         enum("utf16CodeUnits", "unicodeCodePoints"),
		}},
		"tool": {required: []string{"driver"}, props: map[string]check{"driver": anObject("toolComponent")}},
		"toolComponent": {required: []string{"name"}, props: map[string]check{
			"name": str, "version": str, "informationUri": uri(true), "rules": array(anObject("reportingDescriptor"), true),
		}},
		"reportingDescriptor": {required: []string{"id"}, props: map[string]check{
			"id": str, "name": str, "shortDescription": anObject("multiformatMessageString"),
			"fullDescription": anObject("multiformatMessageString"), "help": anObject("multiformatMessageString"),
			"defaultConfiguration": anObject("reportingConfiguration"), "properties": anObject("propertyBag"),
		}},
		"multiformatMessageString": {required: []string{"text"}, props: map[string]check{"text": str, "markdown": str}},
		"reportingConfiguration":   {props: map[string]check{"level": level, "enabled": boolean}},
		"propertyBag":              {open: true, props: map[string]check{"tags": array(str, true)}},
		"result": {required: []string{"message"}, props: map[string]check{
			"ruleId": str, "ruleIndex": integer(-1), "level": level, "message": anObject("message"),
			"locations": array(anObject("location"), false), "partialFingerprints": mapOf(str),
			"suppressions": array(anObject("suppression"), true), "properties": anObject("propertyBag"),
		}},
		"message":  {anyOf: [][]string{{"text"}, {"id"}}, props: map[string]check{"text": str, "markdown": str, "id": str}},
		"location": {props: map[string]check{"physicalLocation": anObject("physicalLocation"), "logicalLocations": array(anObject("logicalLocation"), true)}},
		"physicalLocation": {anyOf: [][]string{{"address"}, {"artifactLocation"}}, props: map[string]check{
			"artifactLocation": anObject("artifactLocation"), "region": anObject("region"),
		}},
		"artifactLocation": {props: map[string]check{"uri": uri(false), "uriBaseId": str, "index": integer(-1)}},
		"region": {anyOf: [][]string{{"startLine"}, {"charOffset"}, {"byteOffset"}}, props: map[string]check{
			"startLine": integer(1), "startColumn": integer(1), "endLine": integer(1), "endColumn": integer(1),
		}},
		"logicalLocation": {props: map[string]check{"name": str, "fullyQualifiedName": str, "kind": str, "index": integer(-1)}},
		"suppression": {required: []string{"kind"}, props: map[string]check{
			"kind": enum("inSource", "external"), "status": enum("accepted", "underReview", "rejected"), "justification": str,
		}},
	}
}

// validateSARIF returns every violation in a decoded SARIF log.
func validateSARIF(v any) []string { return anObject("log")("$", v) }

func anObject(name string) check {
	return func(path string, v any) []string {
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want a %s object, got %T", path, name, v)}
		}
		s, known := sarifShapes[name]
		if !known {
			panic("no shape " + name)
		}
		var errs []string
		for _, r := range s.required {
			if _, ok := m[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required property %q missing", path, r))
			}
		}
		if len(s.anyOf) > 0 && !slices.ContainsFunc(s.anyOf, func(group []string) bool {
			return !slices.ContainsFunc(group, func(k string) bool { _, ok := m[k]; return !ok })
		}) {
			errs = append(errs, fmt.Sprintf("%s: needs one of %v", path, s.anyOf))
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, ok := s.props[k]
			if !ok {
				if !s.open {
					errs = append(errs, fmt.Sprintf("%s: property %q not allowed in %s", path, k, name))
				}
				continue
			}
			errs = append(errs, c(path+"."+k, m[k])...)
		}
		return errs
	}
}

func array(item check, unique bool) check {
	return func(path string, v any) []string {
		a, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %T", path, v)}
		}
		var errs []string
		seen := map[string]bool{}
		for i, x := range a {
			errs = append(errs, item(fmt.Sprintf("%s[%d]", path, i), x)...)
			if key := fmt.Sprint(x); unique && seen[key] {
				errs = append(errs, fmt.Sprintf("%s[%d]: duplicate item in a uniqueItems array", path, i))
			} else {
				seen[key] = true
			}
		}
		return errs
	}
}

func mapOf(value check) check {
	return func(path string, v any) []string {
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", path, v)}
		}
		var errs []string
		for k, x := range m {
			errs = append(errs, value(path+"."+k, x)...)
		}
		return errs
	}
}

func str(path string, v any) []string {
	if _, ok := v.(string); !ok {
		return []string{fmt.Sprintf("%s: want a string, got %T", path, v)}
	}
	return nil
}

func boolean(path string, v any) []string {
	if _, ok := v.(bool); !ok {
		return []string{fmt.Sprintf("%s: want a boolean, got %T", path, v)}
	}
	return nil
}

func enum(values ...string) check {
	return func(path string, v any) []string {
		s, ok := v.(string)
		if !ok || !slices.Contains(values, s) {
			return []string{fmt.Sprintf("%s: %v is not one of %v", path, v, values)}
		}
		return nil
	}
}

func integer(minimum int) check {
	return func(path string, v any) []string {
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) {
			return []string{fmt.Sprintf("%s: want an integer, got %v", path, v)}
		}
		if int(f) < minimum {
			return []string{fmt.Sprintf("%s: %v is below the minimum %d", path, v, minimum)}
		}
		return nil
	}
}

// uri checks format "uri" (absolute) or "uri-reference".
func uri(absolute bool) check {
	return func(path string, v any) []string {
		s, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: want a URI string, got %T", path, v)}
		}
		u, err := url.Parse(s)
		if err != nil {
			return []string{fmt.Sprintf("%s: %q is not a URI: %v", path, s, err)}
		}
		if absolute && !u.IsAbs() {
			return []string{fmt.Sprintf("%s: %q is not an absolute URI", path, s)}
		}
		return nil
	}
}
