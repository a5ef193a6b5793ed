package cliflag

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// NumberError words a numeric flag's bad value for a user ("--seed "-5":
// -5 is negative: want a non-negative integer") instead of the parser's
// message, which names Go functions (strconv.ParseUint); other errors pass
// as they are. It is a cobra flag error function.
func NumberError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	kind, ok := numberKinds[iv.GetFlag().Value.Type()]
	if !ok {
		return err
	}
	if errors.Is(err, errNegative) {
		return fmt.Errorf("--%s %s: %s", iv.GetFlag().Name, jsonscan.Clip(iv.GetValue()), errNegative)
	}
	msg := jsonscan.NumberMismatch(iv.GetValue(), kind)
	if msg == "" {
		return err
	}
	return fmt.Errorf("--%s %q: %s", iv.GetFlag().Name, jsonscan.Clip(iv.GetValue()), msg) // at most 100 bytes of it
}

// numberKinds maps pflag's numeric value types to the kinds they hold.
var numberKinds = map[string]reflect.Kind{
	"int": reflect.Int, "int8": reflect.Int8, "int16": reflect.Int16, "int32": reflect.Int32, "int64": reflect.Int64,
	"uint": reflect.Uint, "uint8": reflect.Uint8, "uint16": reflect.Uint16, "uint32": reflect.Uint32, "uint64": reflect.Uint64,
	"float32": reflect.Float32, "float64": reflect.Float64,
}
