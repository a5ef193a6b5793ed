package cliflag

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data"
)

// BindReward binds the reward and grouping flags (design §2, §3) to c: the
// one definition of train and the data commands.
func BindReward(fs *pflag.FlagSet, c *data.RewardConfig) {
	fs.Float64Var(&c.WLocal, "w-local", c.WLocal, Usage("w-local")+" (the agent's own answer became right/wrong)")
	fs.Float64Var(&c.WGlobal, "w-global", c.WGlobal, Usage("w-global")+" (the agent made the team answer right/wrong, leave-one-out)")
	fs.Float64Var(&c.Lambda, "lambda", c.Lambda, Usage("lambda")+", on the decision's turn")
	fs.Var(&c.GroupBy, "group-by", Usage("group-by"))
}

// CheckReward refuses a reward config given on the command line that the
// data package would misread (data.RewardConfig.ValidateGiven), in the
// words of the flags.
func CheckReward(c data.RewardConfig) error {
	switch err := c.ValidateGiven(); {
	case errors.Is(err, data.ErrConstantReward):
		return errors.New("--w-local, --w-global and --lambda are all 0: the reward would be constant")
	case err != nil:
		return fmt.Errorf("reward flags: %w", err)
	}
	return nil
}

// Reward is the reward and grouping of decisions made from episodes, the
// flags of the data commands that reward them, bound as train binds them.
type Reward struct{ c data.RewardConfig }

// Add binds the reward flags on cmd, set to data's defaults.
func (r *Reward) Add(cmd *cobra.Command) {
	r.c = data.DefaultRewardConfig()
	BindReward(cmd.Flags(), &r.c)
}

// Changed reports whether any reward flag was given.
func (r *Reward) Changed(cmd *cobra.Command) bool {
	return len(Given(cmd.Flags(), "w-local", "w-global", "lambda", "group-by")) > 0
}

// Config is the reward the flags give, checked (CheckReward).
func (r *Reward) Config() (data.RewardConfig, error) { return r.c, CheckReward(r.c) }
