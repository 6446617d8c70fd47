"""scikit-learn's own estimator checks over the wrappers' defaults.

Every applicable check must pass: none is marked as an expected failure and no tag is
declared to switch checks off (the estimators' tags state what they support: sparse
input, multilabel targets for the classifier, multi-output targets for the regressor,
float64 preserved by the default transformer). Checks that need pandas or array-API
support skip with scikit-learn's reason.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from lamina.highlevel.wrappers.sklearn import SKLearnClassifier, SKLearnRegressor, SKLearnTransformer


@parametrize_with_checks([SKLearnClassifier(), SKLearnRegressor(), SKLearnTransformer()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
