"""A lamina network inside a scikit-learn Pipeline, tuned with GridSearchCV.

StandardScaler -> SKLearnClassifier(model=build_fn) on the breast-cancer data set; the grid
searches the network width (``model_kwargs``) and the number of epochs (``fit_kwargs``)
in two worker processes, then the best pipeline is cross-validated. Exits with status 1
if the mean accuracy is below 95%.

Run: python examples/sklearn_pipeline.py
"""

import sys
import time

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import lamina
from lamina import layers


def build_fn(X, y, width=16, learning_rate=0.01):
    """A compiled network for features ``X`` and one-hot class targets ``y`` (the
    classifier passes ``y`` one-hot encoded, as Keras' wrapper does)."""
    model = lamina.Sequential([
        lamina.Input((X.shape[1],)),
        layers.Dense(width, activation="relu"),
        layers.Dense(y.shape[1], activation="softmax"),
    ])
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    return model


def main():
    X, y = load_breast_cancer(return_X_y=True)
    pipeline = Pipeline([
        ("scale", StandardScaler()),
        ("net", lamina.wrappers.SKLearnClassifier(
            model=build_fn, model_kwargs={"width": 16},
            fit_kwargs={"epochs": 10, "batch_size": 32}, random_state=0)),
    ])
    grid = {"net__model_kwargs__width": [4, 32],
            "net__fit_kwargs__epochs": [5, 30]}
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)

    start = time.perf_counter()
    search = GridSearchCV(pipeline, grid, cv=folds, n_jobs=2).fit(X, y)
    searched = time.perf_counter() - start
    print(f"grid search: {len(search.cv_results_['params'])} candidates x 5 folds "
          f"in {searched:.1f} s")
    print("best parameters:", search.best_params_)
    print(f"best cross-validated accuracy in the search: {search.best_score_:.4f}")

    scores = cross_val_score(search.best_estimator_, X, y, cv=folds, n_jobs=2)
    mean = scores.mean()
    print(f"cross_val_score of the best pipeline: {mean:.4f} (+/- {scores.std():.4f})")
    if mean < 0.95:
        print("FAILED: mean accuracy below 0.95", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
