"""The abstract engine interface.

A :class:`Backend` supplies every raw kernel lamina needs, on the engine's own array type,
with no autodiff. Plain elementwise math and reductions come from the engine's NumPy-API
compatible array module, ``backend.xp`` (``numpy`` or ``cupy``): those are the same
functions on every engine, so they are not repeated here as methods. Everything that is
fused, shape-heavy or device-specific (GEMM with bias, convolution, pooling,
normalization, softmax cross-entropy, gather/scatter, random numbers, transfers) is a
method, so an engine can replace it with its own kernel. Optimizer update rules are not
here: each optimizer writes its own with the array module and may ask the engine for a
fused kernel (:meth:`Backend.optimizer_kernel`).

Conventions: arrays are channels-last; ``dtype`` is a NumPy dtype or its name; every
kernel returns new arrays unless it says it works in place.
"""

import abc


class Backend(abc.ABC):
    """The set of raw kernels an engine provides. See module docstring."""

    #: Short name used by ``set_backend`` (``"numpy"``, ``"cupy"``).
    name = None

    # ------------------------------------------------------------------ arrays
    @property
    @abc.abstractmethod
    def xp(self):
        """The engine's NumPy-compatible array module (elementwise math, reductions)."""

    @abc.abstractmethod
    def is_array(self, value):
        """True when ``value`` is already an array of this engine."""

    @abc.abstractmethod
    def asarray(self, value, dtype=None):
        """Convert a NumPy array / scalar / engine array to an engine array of ``dtype``."""

    @abc.abstractmethod
    def to_numpy(self, array):
        """Copy an engine array into a NumPy array (no copy for the NumPy engine)."""

    # ------------------------------------------------------------------ random
    @abc.abstractmethod
    def make_generator(self, seed):
        """A new random generator state from an integer seed (``None``: from entropy)."""

    @abc.abstractmethod
    def random_normal(self, generator, shape, dtype, mean=0.0, stddev=1.0):
        """Array of ``shape`` drawn from N(mean, stddev**2), cast to ``dtype``."""

    @abc.abstractmethod
    def random_uniform(self, generator, shape, dtype, minval=0.0, maxval=1.0):
        """Array of ``shape`` drawn uniformly from [minval, maxval), cast to ``dtype``."""

    @abc.abstractmethod
    def permutation(self, generator, n):
        """A random permutation of ``range(n)`` as an int64 array."""

    @abc.abstractmethod
    def erf(self, x):
        """Elementwise Gauss error function (not part of every array module)."""

    @abc.abstractmethod
    def special(self, name, x):
        """Elementwise special function ``name`` of SciPy's ``scipy.special`` (``"erfinv"``,
        ``"i0"``, ``"i1"``) on this engine's arrays, in ``x``'s dtype."""

    # ----------------------------------------------------------- linear algebra
    @abc.abstractmethod
    def linear(self, x, kernel, bias=None):
        """``x @ kernel + bias`` as one GEMM with the bias added in place.

        Shapes: x (..., in), kernel (in, out), bias (out,) or None -> (..., out).
        """

    # ------------------------------------------------------- softmax and losses
    @abc.abstractmethod
    def softmax(self, x, axis=-1):
        """Numerically stable softmax along ``axis`` (same shape and dtype as x)."""

    @abc.abstractmethod
    def log_softmax(self, x, axis=-1):
        """Numerically stable log-softmax along ``axis``."""

    @abc.abstractmethod
    def sparse_softmax_cross_entropy(self, logits, labels):
        """Per-row cross-entropy of integer ``labels`` against softmax(``logits``).

        Shapes: logits (n, classes) float, labels (n,) integer in [0, classes).
        Returns (losses (n,), probabilities (n, classes)); the gradient of the summed loss
        with respect to the logits is ``probabilities - one_hot(labels)``.
        """

    @abc.abstractmethod
    def softmax_cross_entropy(self, logits, targets):
        """Per-row cross-entropy of probability ``targets`` against softmax(``logits``).

        Shapes: logits and targets (n, classes). Returns (losses (n,), probabilities);
        the gradient with respect to the logits is
        ``probabilities * sum(targets) - targets`` per row. A class whose target is 0
        contributes 0 even when its logit is ``-inf`` (a masked class).
        """

    # ------------------------------------------------------------- convolution
    @abc.abstractmethod
    def conv_forward(self, x, kernel, strides, padding, dilation_rate, groups=1, out=None):
        """N-d channels-last convolution (cross-correlation, as Keras).

        Shapes: x (batch, *spatial, in), kernel (*kernel_size, in // groups, out).
        ``strides`` and ``dilation_rate`` are tuples of len(spatial); ``padding`` is
        ``"valid"``, ``"same"`` or ``"causal"`` (1-d only). Returns (batch, *out_spatial,
        out), written into ``out`` (a C-contiguous array of that shape) when given.
        """

    @abc.abstractmethod
    def conv_backward_input(self, grad_output, kernel, input_shape, strides, padding,
                            dilation_rate, groups=1):
        """Gradient of ``conv_forward`` with respect to x; returns an array of ``input_shape``."""

    @abc.abstractmethod
    def conv_backward_kernel(self, x, grad_output, kernel_shape, strides, padding,
                             dilation_rate, groups=1):
        """Gradient of ``conv_forward`` with respect to the kernel; returns ``kernel_shape``."""

    # ----------------------------------------------------------------- pooling
    @abc.abstractmethod
    def pool_forward(self, x, pool_size, strides, padding, mode, out=None):
        """N-d channels-last max or average pooling.

        Shapes: x (batch, *spatial, channels); ``pool_size``/``strides`` tuples;
        ``padding`` ``"valid"``/``"same"``; ``mode`` ``"max"``/``"average"`` (average
        ignores padded cells, as Keras). Returns (output, context) where context is what
        ``pool_backward`` needs; the output is written into ``out`` when given.
        """

    @abc.abstractmethod
    def pool_backward(self, grad_output, context, out=None):
        """Gradient of ``pool_forward`` with respect to its input (into ``out`` if given)."""

    # ------------------------------------------------------------- ReLU sign
    def keep_sign(self, out):
        """What a fused ReLU's backward keeps of its batch-first output ``out``: its sign
        (``out > 0``), in whatever compact form this engine reads back with
        :meth:`sign_rows`. This engine keeps a boolean array."""
        return out > 0

    def sign_rows(self, kept, rows, shape):
        """The boolean sign of the batch rows ``rows`` of an output of ``shape`` from
        :meth:`keep_sign`'s ``kept``."""
        return kept[rows]

    # ------------------------------------------------------------- batch blocks
    def batch_blocks(self, batch, elements):
        """Row slices to run a batch-sized kernel in, for :meth:`run_blocks`; ``elements``
        is the size of its result. This engine runs one block."""
        return [slice(0, batch)]

    def run_blocks(self, work, blocks):
        """``[work(rows) for rows in blocks]``; engines may run the blocks concurrently,
        so ``work`` must only write to its own rows."""
        return [work(rows) for rows in blocks]

    def run_block_sums(self, work, blocks, shape, dtype):
        """:meth:`run_blocks` for a kernel that also sums over its rows: ``work(rows,
        total)`` adds its block's part into ``total`` (zeros of ``shape`` and ``dtype``,
        one array per block, so concurrent blocks never share one); returns the sum of
        the blocks' totals."""
        totals = self.xp.zeros((len(blocks),) + tuple(shape), dtype)
        self.run_blocks(lambda pair: work(pair[1], totals[pair[0]]), list(enumerate(blocks)))
        return totals[0] if len(blocks) == 1 else totals.sum(axis=0)

    # ------------------------------------------------------------- step replicas
    def replica_threads(self):
        """How many threads can each run one share of a training step's batch at once
        (``DataParallel`` in one process; see
        :mod:`lamina.highlevel.distribution.thread_replicas`). This engine runs a step on
        one thread."""
        return 1

    def run_replicas(self, work, count):
        """``[work(0), ..., work(count - 1)]`` running at the same time (each may wait for
        the others), or None having run nothing when they cannot now."""
        return None

    # ------------------------------------------------------- recurrent cells
    def lstm_cell_kernels(self, dtype):
        """Compiled kernels ``(forward, backward)`` for one LSTM step with the activations
        tanh and sigmoid on arrays of ``dtype``, or None: then the op computes the step
        with array calls.

        ``forward(z, bias, c_old, c_new, cell_activation, h_new)``: ``z`` (batch, 4u) holds
        the step's GEMM result (input and recurrent part) for the gates in the order
        ``[i | f | o | c]`` and ``bias`` (4u,) is in the same order; ``c_old`` (batch, u).
        Writes the activated gates into ``z``, the new cell state into ``c_new``,
        ``tanh(c_new)`` into ``cell_activation`` and the new ``h`` into ``h_new``.

        ``backward(d_h, d_c, gates, cell_activation, c_old, d_gates)``: ``d_h``/``d_c``
        (batch, u) are the gradients reaching the step's new ``h`` and ``c``; writes the
        gradient of the gate pre-activations into ``d_gates`` (batch, 4u) and overwrites
        ``d_c`` with the gradient reaching ``c_old``.
        """
        return None

    def gru_cell_kernels(self, dtype):
        """Compiled kernels ``(forward, backward)`` for one GRU step (``reset_after=True``,
        activations tanh and sigmoid, Keras' gate order ``[z | r | h]``) on arrays of
        ``dtype``, or None: then the op computes the step with array calls.

        ``forward(x_part, recurrent, recurrent_bias, h, gates, memory, h_new)``: the
        step's input projection ``x W + b[0]`` and ``h @ U`` (batch, 3u), the recurrent bias
        ``b[1]`` (3u,) and the (dropout-scaled) state ``h`` (batch, u). Writes ``[z | r | h~]`` into ``gates``,
        ``h U_h + b'_h`` into ``memory`` (batch, u) and ``z * h + (1 - z) * h~`` into
        ``h_new``.

        ``backward(d_h, h, gates, memory, d_input, d_recurrent, d_direct)``: from the
        gradient reaching ``h_new``, writes the gradients of the input-side and the
        recurrent-side pre-activations (batch, 3u; they differ in the candidate block, by
        the factor ``r``) and ``d_h * z`` into ``d_direct`` (batch, u).
        """
        return None

    def recurrent_loop_kernels(self, cell, dtype):
        """Compiled kernels ``(forward, backward)`` that run a whole time loop of ``cell``
        (``"lstm"`` and ``"gru"`` with tanh and sigmoid, the GRU ``reset_after``;
        ``"simple_rnn"`` with tanh) for the batch rows ``start:stop`` on arrays of
        ``dtype``, or None: then the op steps in Python (:meth:`lstm_cell_kernels`).

        Every array is C-contiguous and step-major ``(time, batch, ...)``; ``keep`` is the
        (time, batch) boolean mask or an empty (0, 0) array, ``dropout`` the (batch, u)
        recurrent-dropout scale or an empty (0, 0) array; histories ``hs``/``cs`` are
        (time + 1, batch, u) with the initial state in ``[0]``; ``upstream`` is the
        gradient of the packed states (its ``[t + 1]`` reaches step ``t``'s output).

        * ``"lstm"``: ``forward(projection, bias, recurrent_kernel, keep, dropout, start,
          stop, gates, cell_activation, cs, hs)`` with ``x W`` (time, batch, 4u), the
          bias and kernel in the gate order ``[i | f | o | c]`` of
          :meth:`lstm_cell_kernels`, writing the activated gates, ``tanh(c)`` and both
          histories; ``backward(upstream, gates, cell_activation, cs, transposed_recurrent,
          keep, dropout, start, stop, dh, dc, d_gates, bias_sum)`` starts from
          ``dh``/``dc`` (batch, u), writes the gate gradients, adds their sum over the
          steps and rows into ``bias_sum`` (4u,) and leaves the gradients reaching the
          initial states in ``dh``/``dc``.
        * ``"gru"``: ``forward(projection, recurrent_bias, recurrent_kernel, keep, dropout,
          start, stop, gates, memory, hs)`` (``projection`` = ``x W + b[0]``) as
          :meth:`gru_cell_kernels` per step; ``backward(upstream, hs, gates, memory,
          transposed_recurrent, keep, dropout, start, stop, dh, d_input, d_recurrent,
          bias_sums)`` adds the sums of ``d_input`` and ``d_recurrent`` into
          ``bias_sums`` (2, 3u).
        * ``"simple_rnn"``: ``forward(projection, recurrent_kernel, keep, dropout, start,
          stop, activated, hs)`` (``projection`` = ``x W + b``); ``backward(upstream,
          activated, transposed_recurrent, keep, dropout, start, stop, dh, d_pre,
          bias_sum)`` adds the sum of ``d_pre`` into ``bias_sum`` (u,).

        Every ``transposed_recurrent`` is the recurrent kernel transposed, C-contiguous
        (gates, u): the backward loops' per-step GEMM reads it without a transpose. The
        bias sums (the bias gradient of the block's rows, which the caller zeroes) are
        summed per step while the rows are in cache; when the bias gradient is not
        needed the kernels get an empty stand-in (last axis 0) and skip them.
        """
        return None

    def dense_epilogue_kernels(self, dtype):
        """Compiled kernels ``(forward, backward)`` of a dense layer's bias and linear or
        ReLU activation on arrays of ``dtype``, or None: then the op uses array calls.

        ``forward(out, bias, has_bias, relu, kept)`` adds the bias to the (rows, units)
        GEMM result in place, then with ``relu`` applies the ReLU and writes its sign
        into the boolean ``kept``; ``backward(grad, kept, relu, grad_out, bias_sum,
        has_bias)`` writes ``grad * kept`` into ``grad_out`` (with ``relu``) and adds the
        column sums of the gradient before the bias into ``bias_sum`` (with
        ``has_bias``). Every array is C-contiguous; unused ones are stand-ins.
        """
        return None

    # ------------------------------------------------------- attention
    def attention_core_kernels(self, dtype):
        """Compiled kernels ``(forward, backward)`` of the attention core
        (:func:`lamina.ops.attention_core`) for the batch rows ``start:stop`` on arrays of
        ``dtype``, or None: then the op runs array calls (stacked matmuls, the softmax).

        ``q`` (batch, target, heads, depth), ``k`` (batch, source, heads, depth), ``v``
        (batch, source, heads, value_depth), ``g`` and the gradients are 4-D with a
        contiguous last axis (strided views, such as those of a packed projection, are
        read in place); ``keep`` is a (batch, target, source) boolean array (any strides)
        or an empty (0, 0, 0) one; ``draws`` the dropout's uniform draws of the
        probabilities' shape or an empty (0, 0, 0, 0) array, an entry kept with factor
        ``inverse`` where its draw is ``>= rate``; ``probabilities`` and ``attended``
        (the same array without dropout) C-contiguous (batch, heads, target, source).

        * ``forward(q, k, v, scale, keep, draws, rate, inverse, start, stop,
          probabilities, attended, context)`` writes the masked probabilities, the
          dropped-out ones and the context (batch, target, heads, value_depth).
        * ``backward(g, q, k, v, scale, probabilities, attended, draws, rate, inverse,
          start, stop, dq, dk, dv)`` writes the gradients of q, k and v (an empty
          (0, 0, 0, 0) array: not needed) from ``g``, the context's gradient.
        """
        return None

    # ----------------------------------------------------------- normalization
    @abc.abstractmethod
    def batch_norm_forward(self, x, gamma, beta, epsilon):
        """Training-mode batch normalization over every axis but the last.

        Shapes: x (..., channels); gamma, beta (channels,) or None.
        Returns (y, mean, variance, context): the batch statistics (channels,) and what
        ``batch_norm_backward`` needs.
        """

    @abc.abstractmethod
    def batch_norm_backward(self, grad_y, context):
        """Returns (grad_x, grad_gamma, grad_beta) of ``batch_norm_forward``."""

    @abc.abstractmethod
    def layer_norm_forward(self, x, gamma, beta, epsilon):
        """Normalization over the last axis. Shapes: x (..., features); gamma/beta
        (features,) or None. Returns (y, context)."""

    @abc.abstractmethod
    def layer_norm_backward(self, grad_y, context):
        """Returns (grad_x, grad_gamma, grad_beta) of ``layer_norm_forward``."""

    # ----------------------------------------------------- gather and scatter
    @abc.abstractmethod
    def gather(self, params, indices):
        """Rows of ``params`` (n, ...) at integer ``indices`` (any shape) -> (*indices.shape, ...)."""

    @abc.abstractmethod
    def scatter_add(self, shape, indices, updates):
        """Zeros of ``shape`` with ``updates`` (*indices.shape, ...) added at rows ``indices``
        (repeated indices accumulate): the gradient of :meth:`gather`."""

    # ------------------------------------------------------- optimizer kernels
    def optimizer_kernel(self, name, dtype):
        """A fused kernel for the update rule of optimizer ``name`` (``"adam"``, ...) on
        arrays of ``dtype``, or None: then the optimizer runs its rule as array calls.

        ``"adam"``: ``kernel(variable, gradient, m, v, alpha, beta_1, beta_2, epsilon,
        keep, v_hat)`` updates C-contiguous arrays of ``dtype`` in place with the
        arithmetic of :class:`lamina.optimizers.Adam`'s array calls: ``alpha`` is the
        bias-corrected step size, ``keep = 1 - learning_rate * weight_decay`` and
        ``v_hat`` the AMSGrad slot or None. This engine has none.
        """
        return None
