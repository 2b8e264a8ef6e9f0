// own_softmax_inf.cu: a softmax as blogs write it, its max starting at -INFINITY
// (nvcc's implicit include gives INFINITY; cuplay's prelude does too)
//@ param  ROWS = 64
//@ param  COLS = 256
//@ buffer in  float[ROWS * COLS] random
//@ buffer out float[ROWS * COLS] output
//@ grid  ROWS
//@ block 1
//@ check out = softmax(in, ROWS, COLS)

__global__ void softmax_row(int ROWS, int COLS, const float *in, float *out)
{
	int r = blockIdx.x;
	if (r >= ROWS)
		return;
	const float *x = in + (size_t)r * COLS;
	float m = -INFINITY, s = 0.0f;
	for (int c = 0; c < COLS; c++)
		m = fmaxf(m, x[c]);
	for (int c = 0; c < COLS; c++)
		s += expf(x[c] - m);
	for (int c = 0; c < COLS; c++)
		out[(size_t)r * COLS + c] = expf(x[c] - m) / s;
}
