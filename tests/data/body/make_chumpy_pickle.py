"""Makes tiny_mano_chumpy_py2.pkl (under Python 2) or tiny_mano_chumpy_py3.pkl (under Python 3),
and tiny_mano.npz: a tiny synthetic MANO-layout model (16 joints, 12 vertices, 10 shape columns), pickled the way the distributed SMPL/MANO .pkl files are: a dict
whose shapedirs is a chumpy.Ch, J_regressor a scipy.sparse.csc_matrix, the rest ndarrays, and an
extra key holding a chumpy expression (ignored by readers that do not need it).  The .npz holds
the same arrays as plain NumPy.  Run once in a throwaway environment (see README.md); not by the
tests.
"""
import pickle
import sys

import chumpy as ch
import numpy as np
import scipy.sparse as sp

V, J, S = 12, 16, 10
rs = np.random.RandomState(11)
parents = np.array([-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14])
v_template = rs.normal(scale=0.05, size=(V, 3))
shapedirs = rs.normal(scale=0.005, size=(V, 3, S))
posedirs = rs.normal(scale=0.001, size=(V, 3, 9 * (J - 1)))
jr = np.zeros((J, V))
for j in range(J):
    idx = rs.choice(V, size=4, replace=False)
    jr[j, idx] = rs.uniform(0.1, 1, 4)
    jr[j] /= jr[j].sum()
weights = np.zeros((V, J))
for i in range(V):
    idx = rs.choice(J, size=1 + i % 4, replace=False)
    weights[i, idx] = rs.uniform(0.1, 1, idx.size)
weights /= weights.sum(axis=1, keepdims=True)
kintree = np.stack([np.where(parents < 0, 2**32 - 1, parents), np.arange(J)]).astype(np.int64)
faces = rs.randint(0, V, size=(12, 3)).astype(np.uint32)

plain = {"v_template": v_template, "shapedirs": shapedirs, "posedirs": posedirs,
         "J_regressor": jr, "weights": weights, "kintree_table": kintree, "f": faces}
pkl = dict(plain, shapedirs=ch.array(shapedirs), J_regressor=sp.csc_matrix(jr),
           hands_mean=ch.array(np.zeros(45)) * 2 + 1, bs_style="lbs", bs_type="lrotmin")
out = sys.argv[1] if len(sys.argv) > 1 else "."
with open("%s/tiny_mano_chumpy_py%d.pkl" % (out, sys.version_info[0]), "wb") as f:
    pickle.dump(pkl, f, protocol=2)
np.savez("%s/tiny_mano.npz" % out, **plain)
