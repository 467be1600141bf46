"""What every puzzle's PuLP model reports about itself."""

from __future__ import annotations

import pulp


class ModelSize:
    """Mixin for model records that hold their PuLP problem as `self.problem`."""

    problem: pulp.LpProblem

    @property
    def num_variables(self) -> int:
        return self.problem.numVariables()

    @property
    def num_constraints(self) -> int:
        return self.problem.numConstraints()
