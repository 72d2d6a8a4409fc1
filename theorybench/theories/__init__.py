"""The seven theories as executable models, each deriving Easy/Hard predictions.

``base`` holds the framework (Theory, Prediction, rules, the registry); ``growth`` the
shared growth classifier. Each theory is a module (or small subpackage) that registers
its class with ``@register_theory``; ``registry.theories()`` imports them all.
"""
